/// A dictionary seen through `Any`: its entries paired with another's by key lookup, so comparing two
/// dictionaries whose values are not `Equatable` costs O(n).
package protocol KeyedEntries {
    /// Each entry's key with this dictionary's value and `other`'s for that key; `nil` when `other`
    /// is not a dictionary of the same type or lacks one of the keys.
    func pairedValues(with other: Any) -> [(key: AnyHashable, lhs: Any, rhs: Any)]?

    /// The entries, without going through `Mirror`.
    var anyEntries: [(key: Any, value: Any)] { get }
}

extension Dictionary: KeyedEntries {
    package func pairedValues(with other: Any) -> [(key: AnyHashable, lhs: Any, rhs: Any)]? {
        guard let other = other as? Self, other.count == count else { return nil }
        var pairs: [(key: AnyHashable, lhs: Any, rhs: Any)] = []
        pairs.reserveCapacity(count)
        for (key, value) in self {
            guard let otherValue = other[key] else { return nil }
            pairs.append((AnyHashable(key), value, otherValue))
        }
        return pairs
    }

    package var anyEntries: [(key: Any, value: Any)] {
        map { (key: $0.key as Any, value: $0.value as Any) }
    }
}

/// An array seen through `Any`: its elements paired with another's by position, without `Mirror`.
package protocol IndexedElements {
    /// Each element with `other`'s at the same position; `nil` when `other` is not an array of the
    /// same type and count.
    func pairedElements(with other: Any) -> [(index: Int, lhs: Any, rhs: Any)]?

    /// The elements in `range` (clamped to the array), without going through `Mirror`.
    func anyElements(in range: Range<Int>) -> [Any]

    /// How many elements there are.
    var count: Int { get }
}

extension Array: IndexedElements {
    package func pairedElements(with other: Any) -> [(index: Int, lhs: Any, rhs: Any)]? {
        guard let other = other as? Self, other.count == count else { return nil }
        return indices.map { (index: $0, lhs: self[$0] as Any, rhs: other[$0] as Any) }
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
