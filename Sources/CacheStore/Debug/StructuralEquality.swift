import Foundation

/// Whether two values of unknown type are equal, looking inside them when they are not `Equatable`.
///
/// The rules, which ``Store/debug`` and `TestStore` share:
/// - Values of different types are never equal (`32.0` is not `32`, `[String]` is not `[Substring]`).
/// - `Equatable` values of the same type compare with `==`, with one exception: floating-point
///   NaN equals NaN, as both dump as `nan` (so a handler that writes back an unchanged `.nan` changes
///   nothing). `0.0` and `-0.0` stay equal, as `==` says. When an array's or a dictionary's `==`
///   says unequal, the elements that differ are compared by these rules, so `[Double.nan]` equals
///   `[Double.nan]`, and sets of floating-point numbers are equal with the same numbers and as many
///   NaNs; inside your own `Equatable` types, your `==` decides.
/// - Optionals compare by their wrapped values (`nil` equals only `nil`).
/// - Instances of classes that are not `Equatable` compare by identity: two objects with the same
///   fields are different values.
/// - Enums compare by case, then payload; structs and tuples field by field; arrays in order;
///   dictionaries key by key (O(n), by lookup). An `any Error` payload compares as the value it holds,
///   so `Result<Int, any Error>.failure("x")` with a `String` error equals another with `"x"`.
/// - Anything else compares by its description.
///
/// Two values whose bytes are identical (the same small struct, the same buffer, the same object)
/// are equal without looking further, as `Equatable` promises a value equals itself.
///
/// The comparison walks the values with a stack of its own, so any depth is safe, and costs O(size).
/// A ``QuickEquality`` recognizes equal values first without `Mirror`; only what it cannot show
/// equal is walked.
package func isStructurallyEqual(_ lhs: Any, _ rhs: Any) -> Bool {
    firstDifference(lhs, rhs) == nil
}

/// Where `lhs` and `rhs` first differ by the rules of ``isStructurallyEqual(_:_:)``, or `nil` when they are equal.
package func firstDifference(_ lhs: Any?, _ rhs: Any?) -> ValueDifference? {
    // Each level holds the pairs of one container left to compare, last first; `path` holds the
    // step into each level past the first.
    var levels: [[ChildPair]]
    switch compare(lhs, rhs) {
    case .equal: return nil
    case .different(let kind): return ValueDifference(path: [], kind: kind)
    case .children(let children): levels = [children.reversed()]
    }
    var path: [ValueDifference.Step] = []
    while !levels.isEmpty {
        guard let pair = levels[levels.count - 1].popLast() else {
            levels.removeLast()
            if !levels.isEmpty { path.removeLast() }
            continue
        }
        switch compare(pair.lhs, pair.rhs) {
        case .equal:
            continue
        case .different(let kind):
            return ValueDifference(path: path + [pair.step], kind: kind)
        case .children(let children):
            path.append(pair.step)
            levels.append(children.reversed())
        }
    }
    return nil
}

private typealias ChildPair = (step: ValueDifference.Step, lhs: Any, rhs: Any)

private enum PairComparison {
    case equal
    case different(ValueDifference.Kind)
    /// Equal if each of these pairs is.
    case children([ChildPair])

    static var differentValue: PairComparison { .different(.value(characterOffset: nil)) }
}

private func compare(_ lhs: Any?, _ rhs: Any?) -> PairComparison {
    if let lhs, let rhs, type(of: lhs) == type(of: rhs), haveSameBytes(lhs, rhs) { return .equal }
    let (lhs, rhs) = (lhs.flatMap(flattenedOptional), rhs.flatMap(flattenedOptional))
    guard let lhs, let rhs else { return lhs == nil && rhs == nil ? .equal : .differentValue }
    guard type(of: lhs) == type(of: rhs) else { return .different(.type(type(of: lhs), type(of: rhs))) }
    if let equatable = lhs as? any Equatable {
        if isEqual(equatable, rhs) { return .equal }
        return compareUnequal(lhs, rhs)
    }
    if type(of: lhs) is AnyClass {
        let (left, right) = (ObjectIdentifier(lhs as AnyObject), ObjectIdentifier(rhs as AnyObject))
        return left == right
            ? .equal : .different(.identity(left, right, typeName: String(describing: type(of: lhs))))
    }
    if let quick = QuickEquality.of(type(of: lhs)), quick.holds(opening: lhs, rhs) { return .equal }
    return compareParts(lhs, rhs)
}

/// Two `Equatable` values whose `==` said unequal: equal still when both are NaN, or when an array's
/// or a dictionary's differing elements are (NaN elements); looking at those also names the first.
private func compareUnequal(_ lhs: Any, _ rhs: Any) -> PairComparison {
    if let left = lhs as? any FloatingPoint, left.isNaN, (rhs as? any FloatingPoint)?.isNaN == true {
        return .equal
    }
    if let set = lhs as? any FloatingPointSet, set.hasSameElementsCountingNaN(as: rhs) { return .equal }
    if let left = lhs as? String, let right = rhs as? String {
        return .different(.value(characterOffset: commonPrefixCount(left, right)))
    }
    if let elements = lhs as? any DifferingElements, let pairs = elements.differingElements(with: rhs) {
        return .children(pairs.map { (step: .child($0.index, label: nil), lhs: $0.lhs, rhs: $0.rhs) })
    }
    return lhs is any KeyedEntries ? compareParts(lhs, rhs) : .differentValue
}

/// Two values of the same type compared by their parts: entries, elements, enum case and payload, fields.
private func compareParts(_ lhs: Any, _ rhs: Any) -> PairComparison {
    if let entries = lhs as? any KeyedEntries {
        guard let pairs = entries.pairedValues(with: rhs) else { return .differentValue }
        return .children(pairs.map { (step: .key($0.key), lhs: $0.lhs, rhs: $0.rhs) })
    }
    if let elements = lhs as? any IndexedElements {
        guard let pairs = elements.pairedElements(with: rhs) else { return .differentValue }
        return .children(pairs.map { (step: .child($0.index, label: nil), lhs: $0.lhs, rhs: $0.rhs) })
    }
    let left = Mirror(reflecting: lhs)
    let right = Mirror(reflecting: rhs)
    if left.displayStyle == .enum {
        let (leftCase, rightCase) = (left.children.first, right.children.first)
        guard let leftCase, let rightCase else {
            let same = leftCase == nil && rightCase == nil && String(describing: lhs) == String(describing: rhs)
            return same ? .equal : .differentValue
        }
        guard leftCase.label == rightCase.label else { return .differentValue }
        return .children([(step: .enumCase(leftCase.label ?? ""), lhs: leftCase.value, rhs: rightCase.value)])
    }
    let (leftChildren, rightChildren) = (Array(left.children), Array(right.children))
    guard leftChildren.count == rightChildren.count else { return .differentValue }
    if leftChildren.isEmpty {
        return String(describing: lhs) == String(describing: rhs) ? .equal : .differentValue
    }
    var pairs: [ChildPair] = []
    pairs.reserveCapacity(leftChildren.count)
    for (index, (leftChild, rightChild)) in zip(leftChildren, rightChildren).enumerated() {
        guard leftChild.label == rightChild.label else { return .differentValue }
        pairs.append((step: .child(index, label: leftChild.label), lhs: leftChild.value, rhs: rightChild.value))
    }
    return .children(pairs)
}

/// Whether two values of the same type have the same bytes: then they are equal, as `Equatable`
/// promises (a value equals itself), without looking inside. It may say `false` for equal values
/// (padding, separate buffers), which are then compared field by field.
private func haveSameBytes<Value>(_ lhs: Value, _ rhs: Any) -> Bool {
    withUnsafeBytes(of: lhs) { left in haveBytes(rhs, left) }
}

private func haveBytes<Value>(_ value: Value, _ bytes: UnsafeRawBufferPointer) -> Bool {
    withUnsafeBytes(of: value) { right in
        right.count == bytes.count
            && (bytes.isEmpty || memcmp(right.baseAddress!, bytes.baseAddress!, bytes.count) == 0)
    }
}

private func isEqual<Value: Equatable>(_ lhs: Value, _ rhs: Any) -> Bool {
    guard let rhs = rhs as? Value else { return false }
    return lhs == rhs
}

/// How many characters `lhs` and `rhs` share at their start.
private func commonPrefixCount(_ lhs: String, _ rhs: String) -> Int {
    var count = 0
    for (left, right) in zip(lhs, rhs) {
        guard left == right else { break }
        count += 1
    }
    return count
}
