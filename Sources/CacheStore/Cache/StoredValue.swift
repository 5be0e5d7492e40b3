/// `stored` as a `Value`: what `stored as? Value` returns, faster when the value is stored as a `Value`.
///
/// Values are stored as `Any`, and most reads ask for the type a value was stored as (an `Int` read
/// as `Int`). An `Any` is, by the Swift ABI, a three-word buffer followed by the metadata of the type
/// it holds; a type of at most three words, word-aligned and movable by copying its bytes is held in
/// the buffer itself (larger ones in a box the buffer points to). So when `Value` is such a type and
/// the metadata word is `Value`'s, the buffer holds a `Value`: it is moved out from there
/// (``takeInline(_:from:)``), as `stored` is this read's own copy. Every other case — another type, a
/// subclass, a `Value` that is boxed, an optional or existential `Value`, no value — takes the
/// runtime's dynamic cast, which unwraps, projects and copies through the type's value witnesses.
/// The metadata word is compared as it is, not through `type(of:)`, which opens the existential.
@inlinable
func storedValue<Value>(_ stored: consuming Any?, as _: Value.Type) -> Value? {
    if isInlineInAny(Value.self) {
        let metadata = unsafeBitCast(Value.self as Any.Type, to: UnsafeRawPointer.self)
        let inline = withUnsafeMutableBytes(of: &stored) { container -> Value? in
            // An `Optional<Any>` is laid out as an `Any`, with a null metadata word for `nil`.
            guard container.load(fromByteOffset: anyMetadataOffset, as: UnsafeRawPointer?.self) == metadata else {
                return nil
            }
            return takeInline(Value.self, from: container)
        }
        if let inline {
            dropStoredValue(stored)  // `nil` now: tested inline, nothing destroyed
            return inline
        }
    }
    return stored as? Value
}

/// Moves the `Value` out of the inline buffer of `container`, an `Any?` holding a `Value` there, and
/// leaves `container` `nil` (a null metadata word), so that dropping it destroys nothing.
///
/// A move, not a copy: a copy (`load(as:)`) would retain the value for the copy and leave the `Any?`
/// to be destroyed through `Optional`'s value witness, the existential's and the payload's. A `Value`
/// that ``isInlineInAny(_:)`` is bitwise takable, so its bytes copied to a new place are that value.
@inlinable
func takeInline<Value>(_: Value.Type, from container: UnsafeMutableRawBufferPointer) -> Value {
    let value = withUnsafeTemporaryAllocation(of: Value.self, capacity: 1) { buffer in
        let target = buffer.baseAddress.unsafelyUnwrapped
        UnsafeMutableRawPointer(target).copyMemory(
            from: container.baseAddress.unsafelyUnwrapped, byteCount: MemoryLayout<Value>.size)
        return target.move()
    }
    container.storeBytes(of: nil, toByteOffset: anyMetadataOffset, as: UnsafeRawPointer?.self)
    return value
}

/// Where an `Any`'s type metadata follows its three-word inline buffer.
@inlinable
var anyMetadataOffset: Int { 3 * MemoryLayout<Int>.size }

/// Whether an `Any` holding a `Value` holds it in its inline buffer, not in a box: a compile-time
/// constant for a concrete `Value`.
@inlinable
func isInlineInAny<Value>(_: Value.Type) -> Bool {
    MemoryLayout<Value>.size <= anyMetadataOffset && MemoryLayout<Value>.alignment <= MemoryLayout<Int>.alignment
        && _isBitwiseTakable(Value.self)
}

/// Releases `value`, a value the store no longer holds, with a consuming switch: a value is then
/// destroyed as an `Any`, and `nil` not at all, where dropping an `Any?` destroys it through
/// `Optional`'s value witness. For a read's emptied container, and for the value a handler's `set`
/// replaces, which is mostly the `nil` of a first write.
@inlinable
func dropStoredValue(_ value: consuming Any?) {
    switch consume value {
    case .some(let value): _ = consume value
    case .none: break
    }
}

/// Releases `value`, a value a write replaced, destroyed in place as an `Any`: for a commit's
/// replaced value, which is seldom `nil`.
///
/// Dropped as an `Any?` (or with ``dropStoredValue(_:)``, whose `.some` case the compiler destroys as
/// an `Any?` all the same), it would be destroyed through `Optional`'s value witness, which asks the
/// existential's for the case and then has it destroy the payload through the payload's: three
/// indirect calls. As an `Any`, the payload's witness alone. A handler's `set`, whose replaced value
/// is mostly `nil`, uses ``dropStoredValue(_:)``, which takes no address.
@inlinable
func dropReplacedValue(_ value: consuming Any?) {
    destroyInPlace(&value)
    dropStoredValue(value)  // `nil` now: tested inline
}

/// Destroys the value `stored` holds, if any, as an `Any`, and leaves `stored` `nil`.
///
/// The memory of an `Optional<Any>` that holds a value is an `Any` (see ``holdsValue(_:)``).
@inlinable
func destroyInPlace(_ stored: inout Any?) {
    guard holdsValue(&stored) else { return }
    withUnsafeMutablePointer(to: &stored) { pointer in
        pointer.withMemoryRebound(to: Any.self, capacity: 1) { value in _ = value.deinitialize(count: 1) }
        UnsafeMutableRawPointer(pointer).storeBytes(
            of: nil, toByteOffset: anyMetadataOffset, as: UnsafeRawPointer?.self)
    }
}

/// A copy of the value `stored` holds, copied as an `Any` (the payload's value witness alone), where
/// copying the `Any?` goes through `Optional`'s, the existential's and the payload's.
@inlinable
func copyInPlace(_ stored: inout Any?) -> Any? {
    guard holdsValue(&stored) else { return nil }
    return withUnsafeMutablePointer(to: &stored) { pointer in
        pointer.withMemoryRebound(to: Any.self, capacity: 1) { value -> Any in value.pointee }
    }
}

/// Whether `stored` holds a value, read in place.
///
/// `stored != nil` copies the value through the runtime's value witnesses and destroys the copy (an
/// `Any?` is address-only). An `Any?` is `nil` exactly when the type word of its existential
/// container, after the three-word inline buffer, is zero: `Any`'s layout in the Swift ABI, whose
/// `Optional` takes the null type pointer as `none`. Debug builds check the answer against
/// `stored != nil`.
@inlinable
func holdsValue(_ stored: inout Any?) -> Bool {
    let holdsValue = withUnsafeMutableBytes(of: &stored) { container in
        container.load(fromByteOffset: anyMetadataOffset, as: UnsafeRawPointer?.self) != nil
    }
    assert(holdsValue == (stored != nil), "an Any? laid out otherwise than the Swift ABI says")
    return holdsValue
}
