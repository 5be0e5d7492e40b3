import Foundation

/// A value taken apart for display: a leaf of text, or a group of labeled children between brackets.
package indirect enum DumpNode: Equatable {
    case leaf(String)
    /// `open`, the children separated by commas, then `close`; `omitted` counts children left out.
    case group(open: String, close: String, children: [Child], omitted: Int)

    package struct Child: Equatable {
        package var label: String?
        package var node: DumpNode
    }

    /// Limits that keep the dump of a huge or deeply nested value small.
    package struct Limits: Sendable {
        /// The most children shown per collection; the rest are counted.
        package var maxChildren = 100
        /// The deepest level expanded; deeper values show as `…`.
        package var maxDepth = 24

        package static let standard = Limits()
    }

    /// Takes `value` apart with `Mirror`, within `limits`.
    package init(_ value: Any, limits: Limits = .standard) {
        self = Self.make(value, depth: 0, limits: limits)
    }

    private static func make(_ value: Any, depth: Int, limits: Limits) -> DumpNode {
        guard let value = flattenedOptional(value) else { return .leaf("nil") }
        if let leaf = leafText(value) { return .leaf(leaf) }
        guard depth < limits.maxDepth else { return .leaf("…") }
        let mirror = Mirror(reflecting: value)
        let typeName = String(describing: type(of: value))

        func children(labeled: Bool) -> ([Child], Int) {
            // A collection's own count is O(1) where a mirror's may walk every element.
            let total = (value as? any Collection)?.count ?? mirror.children.count
            let shown = mirror.children.prefix(limits.maxChildren).map { child in
                Child(
                    label: labeled ? child.label.flatMap(Self.displayedLabel) : nil,
                    node: make(child.value, depth: depth + 1, limits: limits))
            }
            return (shown, total - shown.count)
        }

        switch mirror.displayStyle {
        case .enum:
            guard let payload = mirror.children.first else { return .leaf(".\(value)") }
            let caseName = payload.label ?? "\(value)"
            let payloadMirror = Mirror(reflecting: payload.value)
            let fields: [Child]
            if payloadMirror.displayStyle == .tuple {
                fields = payloadMirror.children.map { field in
                    Child(
                        label: field.label.flatMap(displayedLabel),
                        node: make(field.value, depth: depth + 1, limits: limits))
                }
            } else {
                fields = [Child(label: nil, node: make(payload.value, depth: depth + 1, limits: limits))]
            }
            return .group(open: ".\(caseName)(", close: ")", children: fields, omitted: 0)
        case .collection:
            let (shown, omitted) = children(labeled: false)
            return .group(open: "[", close: "]", children: shown, omitted: omitted)
        case .set:
            let (shown, omitted) = children(labeled: false)
            return .group(open: "Set([", close: "])", children: sortedByText(shown), omitted: omitted)
        case .dictionary:
            return dictionary(mirror, depth: depth, limits: limits)
        case .tuple:
            let (shown, omitted) = children(labeled: true)
            return .group(open: "(", close: ")", children: shown, omitted: omitted)
        case .struct, .class:
            let (shown, omitted) = children(labeled: true)
            return .group(open: "\(typeName)(", close: ")", children: shown, omitted: omitted)
        default:
            guard !mirror.children.isEmpty else { return .leaf(String(describing: value)) }
            let (shown, omitted) = children(labeled: true)
            return .group(open: "\(typeName)(", close: ")", children: shown, omitted: omitted)
        }
    }

    private static func dictionary(_ mirror: Mirror, depth: Int, limits: Limits) -> DumpNode {
        var entries: [Child] = []
        for pair in mirror.children {
            let parts = Array(Mirror(reflecting: pair.value).children)
            guard parts.count == 2 else { continue }
            let key = make(parts[0].value, depth: depth + 1, limits: limits).inline
            entries.append(Child(label: key, node: make(parts[1].value, depth: depth + 1, limits: limits)))
        }
        entries.sort { lhs, rhs in (lhs.label ?? "") < (rhs.label ?? "") }
        let shown = Array(entries.prefix(limits.maxChildren))
        guard !shown.isEmpty else { return .leaf("[:]") }
        return .group(open: "[", close: "]", children: shown, omitted: entries.count - shown.count)
    }

    /// A field label as shown: tuple positions (`.0`, `.1`) are not shown.
    private static func displayedLabel(_ label: String) -> String? {
        label.hasPrefix(".") ? nil : label
    }

    private static func sortedByText(_ children: [Child]) -> [Child] {
        children.sorted { lhs, rhs in lhs.node.inline < rhs.node.inline }
    }

    /// The text of values shown whole: strings quoted, numbers, and common Foundation values.
    private static func leafText(_ value: Any) -> String? {
        switch value {
        case let string as String: return quoted(string)
        case let character as Character: return quoted(String(character))
        case let bool as Bool: return String(bool)
        case let number as any BinaryInteger: return String(describing: number)
        case let number as any BinaryFloatingPoint: return String(describing: number)
        case let url as URL: return "URL(\(url.absoluteString))"
        case let uuid as UUID: return "UUID(\(uuid.uuidString))"
        case let date as Date: return "Date(\(date.formatted(.iso8601)))"
        case let data as Data: return "Data(\(data.count) bytes)"
        case let type as Any.Type: return "\(type).self"
        default: return nil
        }
    }

    private static func quoted(_ string: String) -> String {
        var result = "\""
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            case _ where scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value):
                result += "\\u{\(String(scalar.value, radix: 16))}"
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result + "\""
    }
}
