import Foundation

/// What writing a value over the one a key holds does, as observers see it: a value equal to the
/// stored one changes nothing, so no observer is told and `changes` yields nothing for it.
@usableFromInline
enum WriteComparison: Sendable {
    /// The same value: nothing to tell.
    case unchanged
    /// Another value: tell the key's observers.
    case changed
    /// Decided only by the values' own `==` (or by their parts, for a type that is not
    /// `Equatable`): user code, which runs with no lock held (see ``leavesUnchanged(_:_:)``).
    case undecided

    /// Compares `value` with `previous` as far as it can without running user code, so under a lock:
    /// values of another type differ; identical bytes are the same value; and for a type whose bytes
    /// are its value (a trivial type: `Int`, `Bool`, a struct of them), other bytes are another value
    /// (a `-0.0` written over `0.0` is told, as is another NaN: once more, never once less).
    @usableFromInline
    init(_ previous: Any, _ value: Any) {
        guard type(of: previous) == type(of: value) else {
            self = .changed
            return
        }
        func open<Value>(_ previous: Value) -> WriteComparison {
            let isSame = withUnsafePointer(to: previous) { left in
                withValueAddress(of: value) { right in memcmp(left, right, MemoryLayout<Value>.size) == 0 }
            }
            if isSame { return .unchanged }
            return _isPOD(Value.self) ? .changed : .undecided
        }
        self = open(previous)
    }
}

/// Whether writing `value` over `previous` (both of one type, with other bytes) leaves what observers
/// see unchanged: equal by `==` for an `Equatable` type, else equal by the rules of
/// ``isStructurallyEqual(_:_:)``, which the debug log and the test store use. Runs user code: call it
/// with no lock held.
///
/// An `Equatable` value that `==` calls unequal is a change even where the debug log's rules see no
/// difference (an array of NaNs in another buffer): observers are told once more, never once less.
@usableFromInline
func leavesUnchanged(_ previous: Any, _ value: Any) -> Bool {
    if let equatable = previous as? any Equatable { return isEqual(equatable, value) }
    return isStructurallyEqual(previous, value)
}

private func isEqual<Value: Equatable>(_ lhs: Value, _ rhs: Any) -> Bool {
    guard let rhs = rhs as? Value else { return false }
    return lhs == rhs
}

/// The address of the value `value` holds, for the time of `body`.
private func withValueAddress<Result>(of value: Any, _ body: (UnsafeRawPointer) -> Result) -> Result {
    func open<Value>(_ value: Value) -> Result {
        withUnsafePointer(to: value) { body(UnsafeRawPointer($0)) }
    }
    return open(value)
}
