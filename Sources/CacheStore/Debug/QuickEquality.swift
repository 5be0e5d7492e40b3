#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// A check, made once per type, that two values of that type are equal by the rules of
/// ``isStructurallyEqual(_:_:)``, reading their memory: `==` for `Equatable` parts, stored fields by
/// their offsets (see ``StoredFields``), optionals, arrays and dictionaries element by element, and
/// identical bytes for anything else. No `Mirror`, no `Any` box per part: a dictionary of 100,000
/// non-`Equatable` structs is compared in one pass of key lookups.
///
/// It says `true` only for equal values. `false` means "not shown equal": the values differ, or hold
/// a NaN, or equal parts that the check could only compare by their bytes; the comparison then walks
/// them the general way, which also finds where they differ.
///
/// It never recurses deeper than the nesting of the type: a type that contains itself (through an
/// array, say) compares those inner values by their bytes, so a value of any depth is safe.
///
/// Checks are kept for the life of the process, read by any thread under a lock; each only reads
/// what it captured when made.
package struct QuickEquality {
    /// Whether the values at the two addresses, both of the type the check was made for, are equal.
    let isEqualAt: (UnsafeRawPointer, UnsafeRawPointer) -> Bool

    /// Whether the values that `lhs` and `rhs` hold, both of the type the check was made for, are equal.
    package func holds(opening lhs: Any, _ rhs: Any) -> Bool {
        withAddress(of: lhs) { left in withAddress(of: rhs) { right in isEqualAt(left, right) } }
    }

    /// The check for values of `type`; `nil` when there is none better than comparing bytes, which
    /// the comparison does anyway.
    package static func of(_ type: any Any.Type) -> QuickEquality? {
        let id = ObjectIdentifier(type)
        if let known = quickEqualityCache.withLock({ checks[id] }) { return known }
        var building: Set<ObjectIdentifier> = []
        let made = make(type, building: &building)
        return made.isByteComparison ? nil : made.check
    }

    /// The check for elements of `type` in a collection: at least their bytes, which spares the
    /// general comparison an `Any` box per element.
    static func forElements(of type: any Any.Type) -> QuickEquality {
        var building: Set<ObjectIdentifier> = []
        return make(type, building: &building).check
    }

    /// Whether `lhs` and `rhs`, of the type the check was made for, are equal.
    func holds<Value>(_ lhs: Value, _ rhs: Value) -> Bool {
        withUnsafePointer(to: lhs) { left in withUnsafePointer(to: rhs) { isEqualAt(left, $0) } }
    }

    private static let quickEqualityCache = Lock()
    /// Every check made, by type; guarded by `quickEqualityCache`.
    nonisolated(unsafe) private static var checks: [ObjectIdentifier: QuickEquality?] = [:]

    /// The check for `type`, made from those of its parts; `building` holds the types being made
    /// further up, whose values inside themselves are compared by their bytes.
    static func make(
        _ type: any Any.Type, building: inout Set<ObjectIdentifier>
    ) -> (check: QuickEquality, isByteComparison: Bool) {
        let id = ObjectIdentifier(type)
        if let known = quickEqualityCache.withLock({ checks[id] }) {
            return known.map { ($0, false) } ?? (bytes(of: type), true)
        }
        guard building.insert(id).inserted else { return (bytes(of: type), true) }
        defer { building.remove(id) }
        let made = madeFromParts(type, building: &building)
        quickEqualityCache.withLock { checks[id] = made }
        return made.map { ($0, false) } ?? (bytes(of: type), true)
    }

    private static func madeFromParts(_ type: any Any.Type, building: inout Set<ObjectIdentifier>) -> QuickEquality? {
        if let equatable = type as? any Equatable.Type { return equality(equatable) }
        if let container = type as? any QuicklyComparedContainer.Type {
            return container.quickEquality(building: &building)
        }
        // A custom mirror shows other children than the stored fields, and an empty struct is
        // compared by its description: both are left to the general comparison.
        guard !(type is any CustomReflectable.Type), let layout = StoredFields(of: type) else { return nil }
        let fields = layout.fields.map { field in (offset: field.offset, made: make(field.type, building: &building)) }
        if fields.allSatisfy(\.made.isByteComparison) { return nil }
        let checks = fields.map { (offset: $0.offset, isEqualAt: $0.made.check.isEqualAt) }
        return QuickEquality { left, right in
            for field in checks where !field.isEqualAt(left + field.offset, right + field.offset) { return false }
            return true
        }
    }

    private static func equality<Value: Equatable>(_: Value.Type) -> QuickEquality {
        QuickEquality { left, right in
            left.assumingMemoryBound(to: Value.self).pointee == right.assumingMemoryBound(to: Value.self).pointee
        }
    }

    /// Identical bytes: the same value, as `Equatable` promises a value equals itself.
    private static func bytes(of type: any Any.Type) -> QuickEquality {
        let size = byteCount(type)
        return QuickEquality { left, right in size == 0 || memcmp(left, right, size) == 0 }
    }

    private static func byteCount<Value>(_: Value.Type) -> Int {
        MemoryLayout<Value>.size
    }
}

/// The address of the value `value` holds, for the time of `body`.
private func withAddress<Result>(of value: Any, _ body: (UnsafeRawPointer) -> Result) -> Result {
    func open<Value>(_ value: Value) -> Result {
        withUnsafePointer(to: value) { body(UnsafeRawPointer($0)) }
    }
    return open(value)
}

/// A standard-library container whose check is made from its elements'.
protocol QuicklyComparedContainer {
    static func quickEquality(building: inout Set<ObjectIdentifier>) -> QuickEquality?
}

extension Optional: QuicklyComparedContainer {
    static func quickEquality(building: inout Set<ObjectIdentifier>) -> QuickEquality? {
        let wrapped = QuickEquality.make(Wrapped.self, building: &building)
        if wrapped.isByteComparison { return nil }
        return QuickEquality { left, right in
            switch (left.assumingMemoryBound(to: Self.self).pointee, right.assumingMemoryBound(to: Self.self).pointee) {
            case (nil, nil): true
            case (let left?, let right?): wrapped.check.holds(left, right)
            default: false
            }
        }
    }
}

extension Array: QuicklyComparedContainer {
    static func quickEquality(building: inout Set<ObjectIdentifier>) -> QuickEquality? {
        // Elements compared by their bytes still spare the general comparison a box per element.
        let element = QuickEquality.make(Element.self, building: &building).check
        return QuickEquality { left, right in
            let (left, right) = (left.assumingMemoryBound(to: Self.self), right.assumingMemoryBound(to: Self.self))
            guard left.pointee.count == right.pointee.count else { return false }
            return left.pointee.withUnsafeBufferPointer { left in
                right.pointee.withUnsafeBufferPointer { right in
                    left.indices.allSatisfy { element.isEqualAt(left.baseAddress! + $0, right.baseAddress! + $0) }
                }
            }
        }
    }
}

extension Dictionary: QuicklyComparedContainer {
    static func quickEquality(building: inout Set<ObjectIdentifier>) -> QuickEquality? {
        let value = QuickEquality.make(Value.self, building: &building).check
        return QuickEquality { left, right in
            let (left, right) = (left.assumingMemoryBound(to: Self.self), right.assumingMemoryBound(to: Self.self))
            guard left.pointee.count == right.pointee.count else { return false }
            for (key, leftValue) in left.pointee {
                guard let index = right.pointee.index(forKey: key),
                    value.holds(leftValue, right.pointee.values[index])
                else { return false }
            }
            return true
        }
    }
}
