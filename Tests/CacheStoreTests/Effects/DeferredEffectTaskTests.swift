import CacheStore
import Testing

/// An effect started in an idle turn gets its task only once the turn ends (`StoreEngine.inIdleTurn`):
/// what the rest of that turn does to the effect, before its task exists, must hold as it does for a
/// running effect. Each test has a twin without the interfering action, which delivers: so the test
/// sees the effect start, and fails if the interference is lost.
@Suite(.timeLimit(.minutes(2)))
struct DeferredEffectTaskTests {
    /// `.start(0)` starts an effect with id `"x"` that sends `.got("first")`, then handles `.start(1)`
    /// in the same turn (an immediate action is queued behind the current one); `.start(1)` returns
    /// `interference`.
    private func script(interference: ActionEffect<ScriptAction>?) -> EffectScript {
        EffectScript { number in
            guard number == 0 else { return interference }
            return .merge(ActionEffect(id: "x") { .got("first") }, ActionEffect(.start(1)))
        }
    }

    /// Runs `script` from an idle store, waits until no effect runs, then a little longer for a late
    /// delivery; returns what the handler got.
    private func run(_ script: EffectScript) async -> [String] {
        let store = script.makeStore()
        store.handle(action: .start(0))
        #expect(await eventually { store.runningEffectIDs.isEmpty })
        try? await Task.sleep(for: .milliseconds(50))
        return script.log.values
    }

    @Test func anEffectCancelledInTheTurnThatStartedItDeliversNothing() async {
        #expect(await run(script(interference: nil)) == ["first"])
        #expect(await run(script(interference: .cancel(id: "x"))) == [])
    }

    @Test func anEffectReplacedInTheTurnThatStartedItDeliversOnlyTheNewOne() async {
        let replacement = ActionEffect<ScriptAction>(id: "x") { .got("second") }
        #expect(await run(script(interference: nil)) == ["first"])
        #expect(await run(script(interference: replacement)) == ["second"])
    }

    /// Many in a row, as a chain's effects come: each effect's action starts the next, and the ends
    /// come back on whichever thread ran the task; every action is handled once, in order.
    @Test func aChainOfEffectsDeliversEveryActionOnceInOrder() async {
        let length = 2_000
        let script = EffectScript(
            reaction: { name in
                guard let step = Int(name), step < length else { return nil }
                return ActionEffect { .got("\(step + 1)") }
            },
            effect: { _ in ActionEffect { .got("1") } })
        let store = script.makeStore()
        store.handle(action: .start(0))
        #expect(await eventually { script.log.values.count == length && store.runningEffectIDs.isEmpty })
        #expect(script.log.values == (1...length).map(String.init))
    }
}
