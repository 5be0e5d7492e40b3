/// Renders values for people: one line when short, an indented structure when not.
///
/// Structs, classes and tuples show their fields by label, enums their case and payload, collections
/// their elements (sets and dictionaries sorted, so equal values render equally), optionals their
/// wrapped value or `nil`:
///
/// ```
/// Post(id: 1, userId: 1, title: "Mock", body: "Post")
/// .postsResponse(
///   .success(
///     [
///       Post(id: 1, userId: 1, title: "A long enough title to wrap", body: "Post"),
///       Post(id: 2, userId: 1, title: "Another long title", body: "Post")
///     ]
///   )
/// )
/// ```
///
/// Every dump is capped (see ``DumpNode/Limits``) and says what it cut: `… 900 more` elements, a
/// long string's `(characters 1–120 of 5000000)`, `…` past the deepest level shown. A class instance
/// is shown once; where it appears again it reads `TypeName(↩︎)`. So a dump costs O(what it shows),
/// whatever the value: a cyclic object graph, a 5 MB string, a list 20,000 levels deep.
///
/// The debug log and `TestStore`'s failure messages both render through it.
package enum ValueDump {
    /// The width under which a group stays on one line.
    package static let lineWidth = 80

    /// `value` on one line, cut to `maxLength` characters with `…`.
    package static func inline(_ value: Any, maxLength: Int = 200) -> String {
        var limits = DumpNode.Limits.standard
        limits.maxCharacters = maxLength
        return DumpNode(value, limits: limits).inline.truncated(to: maxLength)
    }

    /// `value` as lines, each group on one line when it fits ``lineWidth``, indented by two spaces per level.
    ///
    /// - Parameters:
    ///   - value: The value to show; `nil` shows as `nil`.
    ///   - limits: What to cut.
    ///   - focus: Where `value` differs from the value it is shown against (see ``DumpNode/init(_:limits:focus:)``).
    package static func lines(
        _ value: Any?, limits: DumpNode.Limits = .standard, focus: ValueDifference? = nil
    ) -> [String] {
        guard let value else { return ["nil"] }
        var lines: [String] = []
        DumpNode(value, limits: limits, focus: focus).render(label: nil, indent: "", suffix: "", into: &lines)
        return lines
    }

    /// `items` joined by commas, at most `limit` of them followed by how many more there are.
    package static func truncatedList(_ items: [String], limit: Int) -> String {
        guard items.count > limit else { return items.joined(separator: ", ") }
        return items.prefix(limit).joined(separator: ", ") + ", … and \(items.count - limit) more"
    }
}

extension DumpNode {
    /// The node on one line.
    package var inline: String {
        switch self {
        case .leaf(let text):
            return text
        case .group(let open, let close, let children, let omitted):
            var parts = children.map { child in (child.label.map { "\($0): " } ?? "") + child.node.inline }
            if omitted > 0 { parts.append("… \(omitted) more") }
            return open + parts.joined(separator: ", ") + close
        }
    }

    fileprivate func render(label: String?, indent: String, suffix: String, into lines: inout [String]) {
        let prefix = indent + (label.map { "\($0): " } ?? "")
        let oneLine = prefix + inline + suffix
        guard case .group(let open, let close, let children, let omitted) = self,
            oneLine.count > ValueDump.lineWidth
        else {
            lines.append(oneLine)
            return
        }
        lines.append(prefix + open)
        let childIndent = indent + "  "
        for (index, child) in children.enumerated() {
            let isLast = index == children.count - 1 && omitted == 0
            child.node.render(label: child.label, indent: childIndent, suffix: isLast ? "" : ",", into: &lines)
        }
        if omitted > 0 { lines.append(childIndent + "… \(omitted) more") }
        lines.append(indent + close + suffix)
    }
}

extension String {
    /// The string cut to `maxLength` characters, its last one `…` when cut.
    package func truncated(to maxLength: Int) -> String {
        count <= maxLength ? self : prefix(max(0, maxLength - 1)) + "…"
    }
}
