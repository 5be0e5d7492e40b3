import CacheStoreTesting
import Synchronization
import Testing

// The effect composition examples of the Effects and cancellation article.

nonisolated enum SuggestKey { case query, suggestions }

enum SuggestAction: Equatable {
    case queryChanged(String)
    case suggestions([String])
    case refresh
    case clear
    case save
    case saved
}

enum SuggestID { case debounce, fetch, refresh, save }

/// The article's `SuggestClient`, where `Clock` is the standard library's: the Getting Started
/// examples declare a `Clock` of their own in this module.
enum SuggestExample {
    typealias Clock = _Concurrency.Clock

    struct SuggestClient: Sendable {
        var suggest: @Sendable (String) async -> [String]
        var save: @Sendable ([String]) async -> Void
        var clock: any Clock<Duration>
    }
}

typealias SuggestClient = SuggestExample.SuggestClient

let suggestHandler = StoreActionHandler<
    SuggestKey, SuggestAction, SuggestClient
> { state, action, client in
    let query = state.get(.query, as: String.self) ?? ""
    let fetch = ActionEffect<SuggestAction>(id: SuggestID.fetch) {
        .suggestions(await client.suggest(query))
    }
    switch action {
    case .queryChanged(let newQuery):
        state.set(value: newQuery, forKey: .query)
        return ActionEffect(id: SuggestID.fetch) {
            .suggestions(await client.suggest(newQuery))
        }
        .debounce(
            id: SuggestID.debounce, for: .milliseconds(300),
            clock: client.clock)
    case .suggestions(let suggestions):
        state.set(value: suggestions, forKey: .suggestions)
    case .refresh:
        return fetch.throttle(
            id: SuggestID.refresh, for: .seconds(1),
            clock: client.clock, latest: true)
    case .clear:
        state.remove(.query)
        state.remove(.suggestions)
        return .merge(
            .cancel(id: SuggestID.debounce),
            .cancel(id: SuggestID.fetch))
    case .save:
        let suggestions =
            state.get(.suggestions, as: [String].self) ?? []
        return .concatenate(
            id: SuggestID.save,
            ActionEffect {
                await client.save(suggestions)
                return nil
            },
            ActionEffect(.saved))
    case .saved:
        break
    }
    return .none
}

enum ShellAction: Equatable { case suggest(SuggestAction) }

/// A suggestions backend that records what it was asked.
final class SuggestBackend: Sendable {
    let queries = Mutex<[String]>([])
    let saved = Mutex<[[String]]>([])

    func client(clock: any SuggestExample.Clock<Duration>) -> SuggestClient {
        SuggestClient(
            suggest: { query in
                self.queries.withLock { $0.append(query) }
                return ["\(query)!"]
            },
            save: { suggestions in self.saved.withLock { $0.append(suggestions) } },
            clock: clock)
    }
}

@Suite(.timeLimit(.minutes(2))) struct EffectCompositionExamples {
    @Test func typingFetchesOnceTheDebounceDelayPassed() async {
        let clock = TestClock()
        let store = Store(
            initialValues: [:], actionHandler: suggestHandler,
            dependency: SuggestClient(
                suggest: { query in ["\(query)!"] }, save: { _ in },
                clock: clock))
        store.handle(action: .queryChanged("s"))
        store.handle(action: .queryChanged("swift"))
        await clock.advance(by: .milliseconds(300))
        #expect(await eventually { store.get(.suggestions, as: [String].self) == ["swift!"] })
        #expect(store.get(.query, as: String.self) == "swift")
    }

    @Test func theComposedEffectsRunInATestStore() async {
        let clock = TestClock()
        let backend = SuggestBackend()
        let store = TestStore(
            initialValues: [:], actionHandler: suggestHandler, dependency: backend.client(clock: clock))
        store.send(.queryChanged("s")) { $0.set(value: "s", forKey: .query) }
        store.send(.queryChanged("swift")) { $0.set(value: "swift", forKey: .query) }
        await clock.advance(by: .milliseconds(300))
        await store.receive(.suggestions(["swift!"])) { $0.set(value: ["swift!"], forKey: .suggestions) }
        #expect(backend.queries.withLock { $0 } == ["swift"])

        store.send(.refresh)
        await store.receive(.suggestions(["swift!"]))
        store.send(.refresh)
        store.send(.refresh)
        #expect(store.runningEffectIDs.count == 1)
        await clock.advance(by: .seconds(1))
        await store.receive(.suggestions(["swift!"]))

        // The save runs, then the concatenation's immediate step: .saved is received.
        store.send(.save)
        await store.receive(.saved)
        #expect(backend.saved.withLock { $0 } == [["swift!"]])

        store.send(.queryChanged("sw")) { $0.set(value: "sw", forKey: .query) }
        store.send(.clear) {
            $0.remove(.query)
            $0.remove(.suggestions)
        }
        #expect(store.runningEffectIDs.isEmpty)
    }

    @Test func aMappedEffectSendsTheShellsActions() async {
        let featureEffect = ActionEffect<SuggestAction>(.refresh)
        let shellEffect = featureEffect.map(ShellAction.suggest)
        #expect(shellEffect.id == featureEffect.id)
        let store = Store(
            initialValues: [:],
            actionHandler: StoreActionHandler<SuggestKey, ShellAction, Void> { state, action, _ in
                switch action {
                case .suggest(.saved): state.set(value: ["mapped"], forKey: .suggestions)
                case .suggest(.clear): return ActionEffect<SuggestAction>(.saved).map(ShellAction.suggest)
                default: break
                }
                return nil
            })
        store.handle(action: .suggest(.clear))
        #expect(store.get(.suggestions, as: [String].self) == ["mapped"])
    }
}
