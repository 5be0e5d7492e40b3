/// Whether two values of unknown type are equal, looking inside them when they are not `Equatable`.
///
/// - `Equatable` values of the same type compare with `==`.
/// - Optionals compare by their wrapped values (`nil` equals only `nil`).
/// - Instances of classes that are not `Equatable` compare by identity.
/// - Enums compare by case, then payload; structs and tuples field by field; arrays in order;
///   sets and dictionaries regardless of order. An `any Error` payload compares as the value it holds,
///   so `Result<Int, any Error>.failure("x")` with a `String` error equals another with `"x"`.
/// - Anything else compares by its description.
///
/// Values of different types are never equal.
package func isStructurallyEqual(_ lhs: Any, _ rhs: Any) -> Bool {
    switch (flattenedOptional(lhs), flattenedOptional(rhs)) {
    case (nil, nil): return true
    case (nil, _), (_, nil): return false
    case (let lhs?, let rhs?): return areEqualValues(lhs, rhs, depth: 0)
    }
}

private let maxEqualityDepth = 64

private func areEqualValues(_ lhs: Any, _ rhs: Any, depth: Int) -> Bool {
    guard type(of: lhs) == type(of: rhs) else { return false }
    if let equatable = lhs as? any Equatable {
        return isEqual(equatable, rhs)
    }
    if type(of: lhs) is AnyClass {
        return (lhs as AnyObject) === (rhs as AnyObject)
    }
    guard depth < maxEqualityDepth else { return String(describing: lhs) == String(describing: rhs) }
    let left = Mirror(reflecting: lhs)
    let right = Mirror(reflecting: rhs)
    switch left.displayStyle {
    case .enum:
        let (leftCase, rightCase) = (left.children.first, right.children.first)
        guard let leftCase, let rightCase else {
            return leftCase == nil && rightCase == nil && String(describing: lhs) == String(describing: rhs)
        }
        return leftCase.label == rightCase.label && isEqualNested(leftCase.value, rightCase.value, depth)
    case .set:
        return areEqualUnordered(left.children.map(\.value), right.children.map(\.value), depth)
    case .dictionary:
        return areEqualUnordered(left.children.map(\.value), right.children.map(\.value), depth)
    default:
        guard left.children.count == right.children.count else { return false }
        if left.children.isEmpty { return String(describing: lhs) == String(describing: rhs) }
        return zip(left.children, right.children).allSatisfy { pair in
            pair.0.label == pair.1.label && isEqualNested(pair.0.value, pair.1.value, depth)
        }
    }
}

private func isEqualNested(_ lhs: Any, _ rhs: Any, _ depth: Int) -> Bool {
    switch (flattenedOptional(lhs), flattenedOptional(rhs)) {
    case (nil, nil): true
    case (let lhs?, let rhs?): areEqualValues(lhs, rhs, depth: depth + 1)
    default: false
    }
}

/// Whether every element of `lhs` matches a distinct element of `rhs`: for sets and dictionaries
/// (whose entries are key-value tuples) of elements that are not `Equatable`.
private func areEqualUnordered(_ lhs: [Any], _ rhs: [Any], _ depth: Int) -> Bool {
    guard lhs.count == rhs.count else { return false }
    var unmatched = rhs
    for element in lhs {
        guard let index = unmatched.firstIndex(where: { isEqualNested(element, $0, depth) }) else { return false }
        unmatched.remove(at: index)
    }
    return true
}

private func isEqual<Value: Equatable>(_ lhs: Value, _ rhs: Any) -> Bool {
    guard let rhs = rhs as? Value else { return false }
    return lhs == rhs
}
