/// A dictionary seen through `Any`: its entries paired with another's by key lookup, so comparing two
/// dictionaries whose values are not `Equatable` costs O(n).
package protocol KeyedEntries {
    /// Each entry's key with this dictionary's value and `other`'s for that key, leaving out the
    /// entries that ``QuickEquality`` shows equal; `nil` when `other` is not a dictionary of the same
    /// type and count or lacks one of the keys.
    func pairedValues(with other: Any) -> [(key: AnyHashable, lhs: Any, rhs: Any)]?

    /// The keys in the dictionary's order, without going through `Mirror`.
    var anyKeys: [Any] { get }

    /// The values of the entries at `offsets` in the dictionary's order (the offsets of their keys
    /// in ``anyKeys``), by offset: one pass, boxing only those values.
    func anyValues(atOffsets offsets: Set<Int>) -> [Int: Any]
}

extension Dictionary: KeyedEntries {
    package func pairedValues(with other: Any) -> [(key: AnyHashable, lhs: Any, rhs: Any)]? {
        guard let other = other as? Self, other.count == count else { return nil }
        let isEqual = QuickEquality.forElements(of: Value.self)
        var pairs: [(key: AnyHashable, lhs: Any, rhs: Any)] = []
        for (key, value) in self {
            guard let index = other.index(forKey: key) else { return nil }
            let otherValue = other.values[index]
            if !isEqual.holds(value, otherValue) { pairs.append((AnyHashable(key), value, otherValue)) }
        }
        return pairs
    }

    package var anyKeys: [Any] {
        keys.map { $0 as Any }
    }

    package func anyValues(atOffsets offsets: Set<Int>) -> [Int: Any] {
        // By offset, not by key: a NaN key is never found by lookup.
        var found: [Int: Any] = [:]
        for (offset, index) in indices.enumerated() where offsets.contains(offset) { found[offset] = values[index] }
        return found
    }
}

/// An array seen through `Any`: its elements paired with another's by position, without `Mirror`.
package protocol IndexedElements {
    /// Each element with `other`'s at the same position, leaving out the elements that
    /// ``QuickEquality`` shows equal; `nil` when `other` is not an array of the same type and count.
    func pairedElements(with other: Any) -> [(index: Int, lhs: Any, rhs: Any)]?

    /// The elements in `range` (clamped to the array), without going through `Mirror`.
    func anyElements(in range: Range<Int>) -> [Any]

    /// How many elements there are.
    var count: Int { get }
}

extension Array: IndexedElements {
    package func pairedElements(with other: Any) -> [(index: Int, lhs: Any, rhs: Any)]? {
        guard let other = other as? Self, other.count == count else { return nil }
        let isEqual = QuickEquality.forElements(of: Element.self)
        return indices.compactMap { index in
            isEqual.holds(self[index], other[index]) ? nil : (index: index, lhs: self[index], rhs: other[index])
        }
    }

    package func anyElements(in range: Range<Int>) -> [Any] {
        self[range.clamped(to: indices)].map { $0 as Any }
    }
}

/// An array of `Equatable` elements whose `==` said unequal: the elements that differ, so that the
/// comparison can name the first and look inside (NaN elements are equal to it).
package protocol DifferingElements {
    /// The elements that differ by `==` from `other`'s at the same position; `nil` when `other` is
    /// not an array of the same type and count.
    func differingElements(with other: Any) -> [(index: Int, lhs: Any, rhs: Any)]?
}

extension Array: DifferingElements where Element: Equatable {
    package func differingElements(with other: Any) -> [(index: Int, lhs: Any, rhs: Any)]? {
        guard let other = other as? Self, other.count == count else { return nil }
        // Only elements that may be or hold NaN can be unequal by `==` and equal by the rules: for
        // others, the first that differs is the answer.
        let mayHoldNaN =
            Element.self is any FloatingPoint.Type || Element.self is any OptionalProtocol.Type
            || Element.self is any KeyedEntries.Type || Element.self is any IndexedElements.Type
        var pairs: [(index: Int, lhs: Any, rhs: Any)] = []
        withUnsafeBufferPointer { left in
            other.withUnsafeBufferPointer { right in
                for index in left.indices where left[index] != right[index] {
                    pairs.append((index, left[index], right[index]))
                    if !mayHoldNaN { break }
                }
            }
        }
        return pairs
    }
}

/// A set of floating-point numbers, whose `==` says unequal whenever it holds a NaN (NaN is not
/// equal to itself, so no NaN is found in the other set).
package protocol FloatingPointSet {
    /// Whether `other` is a set of the same type holding the same numbers and as many NaNs.
    func hasSameElementsCountingNaN(as other: Any) -> Bool
}

extension Set: FloatingPointSet where Element: FloatingPoint {
    package func hasSameElementsCountingNaN(as other: Any) -> Bool {
        // Of the same count, with the same numbers: then as many NaNs.
        guard let other = other as? Self, other.count == count else { return false }
        return filter { !$0.isNaN } == other.filter { !$0.isNaN }
    }
}

/// A set seen through `Any`: its members, without going through `Mirror`.
package protocol UnorderedMembers {
    /// The members, in the set's order.
    var anyMembers: [Any] { get }
}

extension Set: UnorderedMembers {
    package var anyMembers: [Any] {
        map { $0 as Any }
    }
}
