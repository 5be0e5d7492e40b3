import CacheStore
import Testing

/// "Releasing the store cancels every effect it runs: a running effect holds its store weakly, so it
/// never keeps it alive" (the Effects article), also for an effect whose work ignores cancellation.
/// A strong capture of the engine by a single effect's task, tried for speed, broke this.
@Suite struct ReleasedStoreEffectTests {
    enum Key: Hashable, Sendable { case payload }
    enum Action: Sendable { case start, late }

    /// A value kept in the state, to see whether the state is released.
    final class Payload: Sendable {}

    @Test func aReleasedStoresStateIsFreedWhileItsSingleEffectIgnoresCancellation() async {
        let gate = Gate()
        defer { gate.open() }
        let handler = StoreActionHandler<Key, Action, Void> { _, action, _ in
            guard case .start = action else { return .none }
            return ActionEffect {
                await gate.wait()  // a continuation: cancelling the task does not end it
                return .late
            }
        }
        weak var payload: Payload?
        do {
            let value = Payload()
            payload = value
            let store = Store(initialValues: [.payload: value], actionHandler: handler, dependency: ())
            store.handle(action: .start)
            #expect(await eventually(timeout: .seconds(10)) { !store.runningEffectIDs.isEmpty })
        }
        #expect(
            await eventually(timeout: .seconds(10)) { payload == nil },
            "the state of a released store is kept alive by its running single-action effect")
    }
}
