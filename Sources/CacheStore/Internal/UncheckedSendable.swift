/// Carries a value across a concurrency boundary that the compiler cannot prove safe.
///
/// Used only where the value is handed over, not shared: the sender keeps no reference to it.
package struct UncheckedSendable<Value>: @unchecked Sendable {
    package var value: Value

    package init(_ value: Value) {
        self.value = value
    }
}
