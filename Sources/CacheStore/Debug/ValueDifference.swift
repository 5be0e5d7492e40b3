/// Where and how two values first differ, as found by ``firstDifference(_:_:)``.
package struct ValueDifference {
    /// The steps from the compared values to the place where they differ; empty when they differ at the top.
    package var path: [Step]
    package var kind: Kind

    /// One step into a value.
    package enum Step {
        /// A field, element or tuple member, by its position among the value's children.
        case child(Int, label: String?)
        /// An enum's case; the next step, if any, is into its payload.
        case enumCase(String)
        /// A dictionary's entry, by key.
        case key(AnyHashable)
    }

    package enum Kind {
        /// The values differ in content. For two strings, `characterOffset` is where they part.
        case value(characterOffset: Int?)
        /// The values are of different types.
        case type(Any.Type, Any.Type)
        /// Two instances of a class that is not `Equatable`, which compare by identity.
        case identity(ObjectIdentifier, ObjectIdentifier, typeName: String)
    }

    /// The path as a Swift-like accessor: `.posts[3].title`, or empty for the top. A path deeper
    /// than 12 steps shows its first 12, then how deep it goes.
    package var pathText: String {
        let shown = path.prefix(12).map { step in
            switch step {
            case .child(_, let label?) where label.hasPrefix("."): label
            case .child(_, let label?): ".\(label)"
            case .child(let index, nil): "[\(index)]"
            case .enumCase(let name): ".\(name)"
            case .key(let key): "[\(ValueDump.inline(key.base, maxLength: 40))]"
            }
        }
        return shown.joined() + (path.count > shown.count ? "… (\(path.count) steps deep)" : "")
    }

    /// A note for a difference the dumps may not show, as `(…)`; `nil` when the dumps show it.
    ///
    /// - Parameter dumpsAreEqual: Whether the two dumps read the same.
    package func note(dumpsAreEqual: Bool) -> String? {
        let place = path.isEmpty ? "" : " at \(pathText)"
        switch kind {
        case .type(let old, let new):
            // Two types of one name (`Post` of two modules) are named in full.
            let short = (String(describing: old), String(describing: new))
            let (oldName, newName) = short.0 == short.1 ? (String(reflecting: old), String(reflecting: new)) : short
            return "(types differ\(place): − \(oldName), + \(newName))"
        case .identity(let old, let new, let typeName) where dumpsAreEqual:
            return "(different instances of \(typeName)\(place), which compares by identity: − \(old), + \(new))"
        case .value where dumpsAreEqual, .identity where dumpsAreEqual:
            return "(the values differ\(place), past what the dump shows)"
        default:
            return nil
        }
    }
}
