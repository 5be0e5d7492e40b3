import Foundation

/// Builds a ``DumpNode`` within its limits: it tracks the objects shown and the characters spent.
struct DumpBuilder {
    private let limits: DumpNode.Limits
    /// Where a string that differs starts to differ, when the focus path ends at one.
    private let focusOffset: Int?
    private var remaining: Int
    private var shownObjects: Set<ObjectIdentifier> = []

    init(limits: DumpNode.Limits, focus: ValueDifference?) {
        self.limits = limits
        self.remaining = limits.maxCharacters
        if case .value(let offset)? = focus?.kind { focusOffset = offset } else { focusOffset = nil }
    }

    /// - Parameter focus: The rest of the path to the difference, when `value` is on it.
    mutating func make(_ value: Any, depth: Int, focus: ArraySlice<ValueDifference.Step>?) -> DumpNode {
        guard remaining > 0 else { return .leaf("…") }
        guard let value = flattenedOptional(value) else { return spend(.leaf("nil")) }
        if let leaf = leafText(value, focus: focus) { return spend(.leaf(leaf)) }
        guard depth < limits.maxDepth else { return spend(.leaf("…")) }
        let typeName = String(describing: type(of: value))
        if type(of: value) is AnyClass {
            guard shownObjects.insert(ObjectIdentifier(value as AnyObject)).inserted else {
                return spend(.leaf("\(typeName)(↩︎)"))
            }
        }
        if let entries = value as? any KeyedEntries {
            return dictionary(entries, depth: depth, focus: focus)
        }
        if let set = value as? any UnorderedMembers {
            return members(set.anyMembers, depth: depth)
        }
        let mirror = Mirror(reflecting: value)
        switch mirror.displayStyle {
        case .enum:
            return enumCase(value, mirror, depth: depth, focus: focus)
        case .collection:
            return group(value, "[", "]", mirror, labeled: false, depth: depth, focus: focus)
        case .tuple:
            return group(value, "(", ")", mirror, labeled: true, depth: depth, focus: focus)
        case .struct, .class:
            return group(value, "\(typeName)(", ")", mirror, labeled: true, depth: depth, focus: focus)
        default:
            guard !mirror.children.isEmpty else { return spend(.leaf(String(describing: value))) }
            return group(value, "\(typeName)(", ")", mirror, labeled: true, depth: depth, focus: focus)
        }
    }

    private mutating func spend(_ node: DumpNode) -> DumpNode {
        switch node {
        case .leaf(let text): remaining -= text.utf8.count
        case .group(let open, let close, _, _): remaining -= open.utf8.count + close.utf8.count
        }
        return node
    }

    private mutating func group(
        _ value: Any, _ open: String, _ close: String, _ mirror: Mirror, labeled: Bool, depth: Int,
        focus: ArraySlice<ValueDifference.Step>?
    ) -> DumpNode {
        _ = spend(.group(open: open, close: close, children: [], omitted: 0))
        // Past the children shown by default, the one on the focus path is shown amid its neighbours.
        var first = 0
        if case .child(let index, _)? = focus?.first, index >= limits.maxChildren {
            first = index - limits.maxChildren / 2
        }
        var shown: [DumpNode.Child] = []
        if first > 0 { shown.append(DumpNode.Child(label: nil, node: .leaf("… \(first) before"))) }
        // An array's elements are read directly: a mirror's may walk every element to reach one.
        let elements: [(label: String?, value: Any)] =
            if let array = value as? any IndexedElements {
                array.anyElements(in: first..<(first + limits.maxChildren)).map { (label: nil, value: $0) }
            } else {
                mirror.children.dropFirst(first).prefix(limits.maxChildren).map { (label: $0.label, value: $0.value) }
            }
        var index = first
        for child in elements {
            guard remaining > 0 else { break }
            let label = labeled ? child.label.flatMap(Self.displayedLabel) : nil
            shown.append(
                DumpNode.Child(
                    label: label, node: make(child.value, depth: depth + 1, focus: Self.step(into: index, focus))))
            index += 1
        }
        // A collection's own count is O(1) where a mirror's may walk every element.
        let total = (value as? any Collection)?.count ?? mirror.children.count
        let omitted = total - index
        return .group(open: open, close: close, children: shown, omitted: omitted)
    }

    private mutating func enumCase(
        _ value: Any, _ mirror: Mirror, depth: Int, focus: ArraySlice<ValueDifference.Step>?
    ) -> DumpNode {
        guard let payload = mirror.children.first else { return spend(.leaf(".\(value)")) }
        let caseName = payload.label ?? "\(value)"
        let payloadFocus: ArraySlice<ValueDifference.Step>? =
            if case .enumCase(caseName)? = focus?.first { focus?.dropFirst() } else { nil }
        let open = ".\(caseName)("
        _ = spend(.group(open: open, close: ")", children: [], omitted: 0))
        let payloadMirror = Mirror(reflecting: payload.value)
        guard payloadMirror.displayStyle == .tuple else {
            let node = make(payload.value, depth: depth + 1, focus: payloadFocus)
            return .group(open: open, close: ")", children: [DumpNode.Child(label: nil, node: node)], omitted: 0)
        }
        var fields: [DumpNode.Child] = []
        for (index, field) in payloadMirror.children.enumerated() {
            guard remaining > 0 else { break }
            fields.append(
                DumpNode.Child(
                    label: field.label.flatMap(Self.displayedLabel),
                    node: make(field.value, depth: depth + 1, focus: Self.step(into: index, payloadFocus))))
        }
        return .group(open: open, close: ")", children: fields, omitted: payloadMirror.children.count - fields.count)
    }

    /// Entries sorted by their keys' text, so that equal dictionaries dump the same. Past the entries
    /// shown by default, the one on the focus path is shown amid its neighbours; only the values
    /// shown are read.
    private mutating func dictionary(
        _ entries: any KeyedEntries, depth: Int, focus: ArraySlice<ValueDifference.Step>?
    ) -> DumpNode {
        let keys = entries.anyKeys
        guard !keys.isEmpty else { return spend(.leaf("[:]")) }
        _ = spend(.group(open: "[", close: "]", children: [], omitted: 0))
        let keyed = keys.enumerated().map { (text: Self.keyText($1), key: $1, offset: $0) }.sorted { $0.text < $1.text }
        let focusedKey: AnyHashable? = if case .key(let key)? = focus?.first { key } else { nil }
        var first = 0
        if let focusedKey {
            let text = Self.keyText(focusedKey.base)
            let index = keyed.firstIndex { $0.text == text && $0.key as? AnyHashable == focusedKey } ?? 0
            if index >= limits.maxChildren { first = index - limits.maxChildren / 2 }
        }
        var shown: [DumpNode.Child] = []
        if first > 0 { shown.append(DumpNode.Child(label: nil, node: .leaf("… \(first) before"))) }
        var index = first
        let window = keyed[first...].prefix(limits.maxChildren)
        let values = entries.anyValues(atOffsets: Set(window.map(\.offset)))
        for (text, key, offset) in window {
            guard remaining > 0, let value = values[offset] else { break }
            remaining -= text.utf8.count
            let entryFocus = focusedKey != nil && focusedKey == key as? AnyHashable ? focus?.dropFirst() : nil
            shown.append(DumpNode.Child(label: text, node: make(value, depth: depth + 1, focus: entryFocus)))
            index += 1
        }
        return .group(open: "[", close: "]", children: shown, omitted: keys.count - index)
    }

    /// A set's members, all sorted by their text before the first are shown, so that equal
    /// sets dump the same and two large sets show the same first members whatever their order.
    private mutating func members(_ members: [Any], depth: Int) -> DumpNode {
        _ = spend(.group(open: "Set([", close: "])", children: [], omitted: 0))
        var shown: [DumpNode.Child] = []
        for member in members.map({ (text: Self.keyText($0), member: $0) }).sorted(by: { $0.text < $1.text })
            .prefix(limits.maxChildren)
        {
            guard remaining > 0 else { break }
            shown.append(DumpNode.Child(label: nil, node: make(member.member, depth: depth + 1, focus: nil)))
        }
        return .group(open: "Set([", close: "])", children: shown, omitted: members.count - shown.count)
    }

    /// A dictionary key as shown: short, on one line.
    private static func keyText(_ key: Any) -> String {
        if let number = key as? Int { return String(number) }
        var builder = DumpBuilder(limits: keyLimits, focus: nil)
        return builder.make(key, depth: 0, focus: nil).inline
    }

    private static let keyLimits = DumpNode.Limits(
        maxChildren: 10, maxDepth: 4, maxStringLength: 40, maxCharacters: 200)

    /// The focus for the child at `index`, when the focus path goes through it.
    private static func step(
        into index: Int, _ focus: ArraySlice<ValueDifference.Step>?
    ) -> ArraySlice<ValueDifference.Step>? {
        guard case .child(index, _)? = focus?.first else { return nil }
        return focus?.dropFirst()
    }

    /// A field label as shown: tuple positions (`.0`, `.1`) are not shown.
    private static func displayedLabel(_ label: String) -> String? {
        label.hasPrefix(".") ? nil : label
    }

    /// The text of values shown whole: strings quoted, numbers, and common Foundation values.
    private func leafText(_ value: Any, focus: ArraySlice<ValueDifference.Step>?) -> String? {
        switch value {
        case let string as String: return text(of: string, differingAt: focus?.isEmpty == true ? focusOffset : nil)
        case let string as Substring: return text(of: String(string), differingAt: nil)
        case let character as Character: return Self.quoted(String(character))
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

    /// `string` quoted; when longer than the limit, the part around `offset` (or its start), with
    /// which characters those are: `"…" (characters 4999961–5000001 of 5000001)`.
    private func text(of string: String, differingAt offset: Int?) -> String {
        let maxLength = limits.maxStringLength
        guard string.utf8.count > maxLength else { return Self.quoted(string) }
        let count = string.count
        guard count > maxLength else { return Self.quoted(string) }
        // The same start on both sides of a diff, so that the two windows line up.
        let start = min(max(0, (offset ?? 0) - maxLength / 3), count - 1)
        let end = min(count, start + maxLength)
        let from = string.index(string.startIndex, offsetBy: start)
        let to = string.index(from, offsetBy: end - start)
        return Self.quoted(String(string[from..<to])) + " (characters \(start + 1)–\(end) of \(count))"
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
