/// Where a store in debug mode writes each action and its state change; off until set.
final class DebugLog: @unchecked Sendable {
    private let lock = Lock()
    private var output: (@Sendable (String) -> Void)?

    func setOutput(_ output: @escaping @Sendable (String) -> Void) {
        lock.withLock { self.output = output }
    }

    /// Writes the report of one action, if debugging is on. Renders only what changed.
    func record<Key: Hashable & SendableMetatype, Action>(action: Action, changes: [StateChange<Key>]) {
        guard let output = lock.withLock({ output }) else { return }
        output(StateChangeReport.debugText(action: action, changes: changes))
    }
}
