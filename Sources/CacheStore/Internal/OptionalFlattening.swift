/// A type-erased view of `Optional`, so a value typed `Any` that holds an optional can be unwrapped.
@usableFromInline
protocol OptionalProtocol {
    var wrappedAny: Any? { get }
}

extension Optional: OptionalProtocol {
    @usableFromInline var wrappedAny: Any? {
        switch self {
        case .some(let wrapped): flattenedOptional(wrapped)
        case .none: nil
        }
    }
}

/// `value` with every level of `Optional` removed: `nil` for any `.none`, the wrapped value otherwise.
///
/// The cache stores unwrapped values, so `Optional<Int>.some(1)` is stored as `1` and reads back as
/// `Int`, and setting `Optional.none` removes the key.
@usableFromInline
package func flattenedOptional(_ value: Any) -> Any? {
    if let optional = value as? any OptionalProtocol {
        return optional.wrappedAny
    }
    return value
}

/// `value` unwrapped as with ``flattenedOptional(_:)``, skipping the dynamic cast when `Value` is
/// statically known not to be an optional or an existential that could hold one.
///
/// `_isOptional` is the standard library's compile-time check, so a value of a concrete, non-optional
/// type is stored with no runtime conformance check.
@inlinable
package func storableValue<Value>(_ value: Value) -> Any? {
    if _isOptional(Value.self) || Value.self == Any.self {
        return flattenedOptional(value)
    }
    return value
}
