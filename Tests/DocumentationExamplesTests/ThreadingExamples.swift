import CacheStore
import Observation
import Testing

// The examples of the Threading article (Documentation.docc/Threading.md).

enum TallyKey { case count, changes }
enum TallyAction { case increment, recordChange }

@Suite struct ThreadingExamples {
    @Test func actionsFromManyTasksAreHandledOneAtATime() async {
        let tally = Store(
            initialValues: [.count: 0, .changes: 0],
            actionHandler: StoreActionHandler<TallyKey, TallyAction, Void> { state, action, _ in
                switch action {
                case .increment: state.update(.count, as: Int.self) { count in count = (count ?? 0) + 1 }
                case .recordChange: state.update(.changes, as: Int.self) { changes in changes = (changes ?? 0) + 1 }
                }
                return .none
            }
        )

        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<1_000 {
                group.addTask { tally.handle(action: .increment) }
            }
        }
        let total = tally.get(.count, as: Int.self)  // 1,000
        #expect(total == 1_000)

        withObservationTracking {
            _ = tally.get(.count, as: Int.self)
        } onChange: {
            tally.handle(action: .recordChange)  // queued: handled after the action that changed .count
        }
        tally.handle(action: .increment)
        let changes = tally.get(.changes, as: Int.self)  // 1: handled before `handle` returned
        #expect(changes == 1)
        #expect(tally.get(.count, as: Int.self) == 1_001)
    }
}
