import CacheStore
import Foundation
import Testing

enum ComposedAction: Equatable, Sendable {
    case go
    case received(String)
}

/// A store whose `.go` returns `effect()`, and whose `.received` appends to `.list`.
func makeComposedStore(
    _ effect: @escaping @Sendable () -> ActionEffect<ComposedAction>?
) -> Store<Key, ComposedAction, Void> {
    Store(
        initialValues: [:],
        actionHandler: StoreActionHandler { state, action, _ in
            switch action {
            case .go:
                return effect()
            case .received(let name):
                state.update(.list, as: [String].self) { $0 = ($0 ?? []) + [name] }
                return .none
            }
        })
}

/// An effect under `id` that waits for `gate` (if any), then delivers `.received(name)`.
func receiving(_ name: String, id: AnyHashable, after gate: Gate? = nil) -> ActionEffect<ComposedAction> {
    ActionEffect(id: id) {
        await gate?.wait()
        return .received(name)
    }
}

@Suite(.timeLimit(.minutes(2))) struct EffectCompositionTests {
    @Test func aMergedEffectStartsEveryPartAndCancelByIDReachesOne() async {
        let (a, b) = (Gate(), Gate())
        let store = makeComposedStore { .merge(receiving("a", id: "a", after: a), receiving("b", id: "b", after: b)) }
        store.handle(action: .go)
        #expect(store.runningEffectIDs == ["a", "b"])
        #expect(store.cancel(id: "a"))
        a.open()
        b.open()
        #expect(await eventually { store.get(.list, as: [String].self) == ["b"] })
        #expect(await eventually { store.runningEffectIDs.isEmpty })
        #expect(store.get(.list, as: [String].self) == ["b"])
    }

    @Test func aConcatenatedEffectStartsEachPartWhenTheOneBeforeHasEnded() async {
        let gate = Gate()
        let store = makeComposedStore {
            .concatenate(id: "chain", receiving("a", id: "a", after: gate), receiving("b", id: "b"))
        }
        store.handle(action: .go)
        #expect(store.runningEffectIDs == ["chain", "a"])
        try? await Task.sleep(for: .milliseconds(20))
        #expect(store.get(.list, as: [String].self) == nil)
        gate.open()
        #expect(await eventually { store.get(.list, as: [String].self) == ["a", "b"] })
        #expect(await eventually { store.runningEffectIDs.isEmpty })
    }

    @Test func aConcatenationsImmediateActionsAreHandledInTheirTurn() async {
        let store = makeComposedStore {
            .concatenate(
                receiving("a", id: "a"), ActionEffect(.received("b")),
                .concatenate(ActionEffect(.received("c")), receiving("d", id: "d")), ActionEffect(.received("e")))
        }
        store.handle(action: .go)
        #expect(await eventually { store.get(.list, as: [String].self)?.count == 5 })
        #expect(store.get(.list, as: [String].self) == ["a", "b", "c", "d", "e"])
        #expect(await eventually { store.runningEffectIDs.isEmpty })
    }

    @Test func cancellingAPartOfAConcatenationStartsTheNextPartOnceTheCancelledOneReturned() async {
        let store = makeComposedStore {
            .concatenate(
                id: "chain",
                ActionEffect(id: "a") {
                    try? await Task.sleep(for: .seconds(60))
                    return .received("a")
                },
                receiving("b", id: "b"))
        }
        store.handle(action: .go)
        #expect(store.cancel(id: "a"))
        #expect(await eventually { store.get(.list, as: [String].self) == ["b"] })
        #expect(await eventually { store.runningEffectIDs.isEmpty })
        #expect(store.get(.list, as: [String].self) == ["b"])
    }

    @Test func cancellingAConcatenationCancelsItsRunningPartAndStartsNoOther() async {
        let gate = Gate()
        let store = makeComposedStore {
            .concatenate(id: "chain", receiving("a", id: "a", after: gate), receiving("b", id: "b"))
        }
        store.handle(action: .go)
        #expect(store.cancel(id: "chain"))
        #expect(await eventually { store.runningEffectIDs.isEmpty })
        gate.open()
        try? await Task.sleep(for: .milliseconds(50))
        #expect(store.get(.list, as: [String].self) == nil)
    }

    @Test func aNewConcatenationWithTheSameIDReplacesTheRunningOne() async {
        let (first, second) = (Gate(), Gate())
        let round = Recorder<Int>()
        let store = makeComposedStore {
            round.append(0)
            let gate = round.values.count == 1 ? first : second
            let name = round.values.count == 1 ? "first" : "second"
            return .concatenate(id: "chain", receiving(name, id: name, after: gate))
        }
        store.handle(action: .go)
        store.handle(action: .go)
        first.open()
        second.open()
        #expect(await eventually { store.get(.list, as: [String].self) == ["second"] })
        #expect(await eventually { store.runningEffectIDs.isEmpty })
        #expect(store.get(.list, as: [String].self) == ["second"])
    }

    @Test func aMappedEffectKeepsTheIDsOfItsParts() async {
        let (a, b) = (Gate(), Gate())
        let store = makeComposedStore {
            let feature = ActionEffect<String>.merge(
                ActionEffect(id: "a") {
                    await a.wait()
                    return "a"
                },
                .concatenate(
                    id: "chain",
                    ActionEffect(id: "b") {
                        await b.wait()
                        return "b"
                    }))
            return feature.map(ComposedAction.received)
        }
        store.handle(action: .go)
        #expect(store.runningEffectIDs == ["a", "chain", "b"])
        #expect(store.cancel(id: "b"))
        #expect(store.cancel(id: "a"))
        a.open()
        b.open()
        #expect(await eventually { store.runningEffectIDs.isEmpty })
        try? await Task.sleep(for: .milliseconds(20))
        #expect(store.get(.list, as: [String].self) == nil)
    }

    @Test func aMappedEffectDeliversMappedActions() async {
        let store = makeComposedStore {
            .merge(
                ActionEffect<String>("now").map(ComposedAction.received),
                ActionEffect<String> { "later" }.map(ComposedAction.received),
                ActionEffect<String>.run { send in await send("sent") }.map(ComposedAction.received))
        }
        store.handle(action: .go)
        #expect(await eventually { store.get(.list, as: [String].self)?.count == 3 })
        #expect(Set(store.get(.list, as: [String].self) ?? []) == ["now", "later", "sent"])
    }

    @Test func aMergeOfNothingDoesNothing() {
        let store = makeComposedStore { .merge() }
        store.handle(action: .go)
        #expect(store.runningEffectIDs.isEmpty)
        #expect(store.get(.list, as: [String].self) == nil)
    }

    @Test func anEffectWithoutAnIDGetsAUniqueIDThatIsNotAUUID() {
        let first = ActionEffect<Int>(1)
        let second = ActionEffect<Int> { 2 }
        #expect(first.id != second.id)
        #expect(first.id == first.id)
        #expect(!(first.id.base is UUID))
        #expect(!(ActionEffect<Int>.run { _ in }.id.base is UUID))
    }
}
