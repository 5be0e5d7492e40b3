import CacheStoreTesting
import Foundation
import Testing

/// `send`: the change of the action sent, checked exhaustively; its effects started as in the app.
@Suite(.timeLimit(.minutes(1))) struct SendTests {
    @Test func aCorrectExpectationReportsNothing() async {
        let failures = await captureFailures {
            let store = makeLoadStore(initialValues: [.page: 1])
            store.send(.nextPage) { $0.set(value: 2, forKey: .page) }
            #expect(store.store.get(.page, as: Int.self) == 2)
        }
        #expect(failures.isEmpty)
    }

    @Test func anExpectationWritesThroughATypedKey() async {
        let failures = await captureFailures {
            let store = makeLoadStore(initialValues: [.page: 1])
            store.send(.nextPage) { $0[.typedPage] = 2 }
            #expect(store.store[.typedPage] == 2)
        }
        #expect(failures.isEmpty)
    }

    @Test func aWrongValueThroughATypedKeyNamesThePlainKey() async {
        let failures = await captureFailures {
            let store = makeLoadStore(initialValues: [.page: 1])
            store.send(.nextPage) { $0[.typedPage] += 2 }
        }
        #expect(
            failures.map(\.message) == [
                """
                State after .nextPage does not match the expectation (− expected, + actual):
                  .page
                −   3
                +   2
                Fix the expectation closure, or the handler if the state is wrong.
                """
            ])
    }

    @Test func aWrongValueIsOneFailureWithExpectedAndActual() async {
        let failures = await captureFailures {
            let store = makeLoadStore()
            store.send(.nextPage) { $0.set(value: 5, forKey: .page) }
        }
        #expect(
            failures.map(\.message) == [
                """
                State after .nextPage does not match the expectation (− expected, + actual):
                  .page
                −   5
                +   1
                Fix the expectation closure, or the handler if the state is wrong.
                """
            ])
    }

    @Test func aChangeTheExpectationLeftOutIsReported() async {
        let failures = await captureFailures {
            let store = makeLoadStore(initialValues: [.isLoading: false])
            store.send(.load) { _ in }
            store.cancel(id: LoadID.load)
        }
        #expect(
            failures.map(\.message) == [
                """
                State after .load does not match the expectation (− expected, + actual):
                  .isLoading
                −   false
                +   true
                Fix the expectation closure, or the handler if the state is wrong.
                """
            ])
    }

    @Test func anExpectedChangeThatDidNotHappenIsReported() async {
        let failures = await captureFailures {
            let store = makeLoadStore(initialValues: [.page: 1])
            store.send(.nextPage) { state in
                state.set(value: 2, forKey: .page)
                state.set(value: [9], forKey: .items)
            }
        }
        #expect(
            failures.map(\.message) == [
                """
                State after .nextPage does not match the expectation (− expected, + actual):
                  .items
                −   [9]
                +   nil
                Fix the expectation closure, or the handler if the state is wrong.
                """
            ])
    }

    @Test func everyDifferingKeyIsInTheOneFailure() async {
        let failures = await captureFailures {
            let store = makeLoadStore()
            store.send(.loaded(.success([1, 2]))) { state in
                state.set(value: true, forKey: .isLoading)
                state.set(value: [1, 3], forKey: .items)
            }
        }
        #expect(failures.count == 1)
        #expect(failures.first?.message.contains("  .isLoading\n−   true\n+   false") == true)
        #expect(failures.first?.message.contains("  .items\n−   [1, 3]\n+   [1, 2]") == true)
    }

    @Test func longValuesAreDiffedLineByLine() async {
        let long = Array(1000..<1030)
        let failures = await captureFailures {
            let store = makeLoadStore()
            store.send(.loaded(.success(long))) { state in
                state.set(value: false, forKey: .isLoading)
                state.set(value: long.map { $0 == 1010 ? 0 : $0 }, forKey: .items)
            }
        }
        let message = failures.first?.message ?? ""
        #expect(message.contains("−     0,\n+     1010,"))
        #expect(message.contains("      1009,"))
    }

    @Test func aDifferencePastTheElementsShownByDefaultIsShownAmidItsNeighbours() async {
        let long = Array(0..<500)
        let failures = await captureFailures {
            let store = makeLoadStore()
            store.send(.loaded(.success(long))) { state in
                state.set(value: false, forKey: .isLoading)
                state.set(value: long.map { $0 == 400 ? -1 : $0 }, forKey: .items)
            }
        }
        let lines = failures.first?.message.components(separatedBy: "\n") ?? []
        #expect(failures.count == 1)
        #expect(lines.first?.hasPrefix("State after .loaded(.success([0, 1, 2, 3,") == true)
        #expect(lines.first?.count ?? 0 < 300)  // a long action is cut short in the message
        #expect(Array(lines[1...3]) == ["  .items", "    [", "      … 350 before,"])
        #expect(lines.contains("−     -1,") && lines.contains("+     400,"))
        #expect(lines.contains("      … 50 more"))
    }

    @Test func theFailurePointsAtTheSendLine() async {
        var sendLine: UInt = 0
        let failures = await captureFailures {
            let store = makeLoadStore()
            sendLine = #line + 1
            store.send(.nextPage) { _ in }
        }
        #expect(failures.map(\.line) == [sendLine])
    }

    @Test func aThrowingExpectationIsReportedAndTheActionStillHandled() async {
        let failures = await captureFailures {
            let store = makeLoadStore()
            store.send(.nextPage) { _ in throw LoadError(reason: "bad setup") }
            #expect(store.store.get(.page, as: Int.self) == 1)
        }
        #expect(failures.map(\.message) == [#"The expectation for .nextPage threw LoadError(reason: "bad setup")."#])
    }

    @Test func anExpectationThatReplacesTheWholeStateIsComparedKeyByKey() async {
        let failures = await captureFailures {
            let store = makeLoadStore(initialValues: [.page: 1, .error: "old"])
            store.send(.nextPage) { state in
                state = CacheStore(initialValues: [.page: 2])
            }
        }
        #expect(
            failures.map(\.message) == [
                """
                State after .nextPage does not match the expectation (− expected, + actual):
                  .error
                −   nil
                +   "old"
                Fix the expectation closure, or the handler if the state is wrong.
                """
            ])
    }

    @Test func theExpectationAfterAReplacingOneStartsFromTheStore() async {
        let failures = await captureFailures {
            let store = makeLoadStore(initialValues: [.page: 1, .error: "old"])
            store.send(.nextPage) { state in
                state = CacheStore(initialValues: [.page: 2, .error: "old"])
            }
            store.store.handle(action: .stopLoading)  // a change the replacing cache never saw
            await store.receive(.stopLoading) { $0.set(value: false, forKey: .isLoading) }
            store.send(.nextPage) { $0.set(value: 3, forKey: .page) }
        }
        #expect(failures.isEmpty)
    }

    /// `send` starts the effect as a store does, but does not run it: it runs inside `receive`.
    @Test func sendStartsTheEffectButDoesNotRunIt() async {
        let fetched = LockedList<Bool>()
        let failures = await captureFailures {
            let store = makeLoadStore(
                LoadDependency(
                    fetch: {
                        fetched.append(true)
                        return .success([])
                    }, pageSize: { 0 }))
            store.send(.load) { $0.set(value: true, forKey: .isLoading) }
            #expect(store.runningEffectIDs == [AnyHashable(LoadID.load)])
            #expect(fetched.values.isEmpty, "send ran the effect")
            store.cancel(id: LoadID.load)
            #expect(store.runningEffectIDs.isEmpty)
        }
        #expect(failures.isEmpty)
    }

    @Test func aCancelEffectCancelsTheEffectWithItsID() async {
        let failures = await captureFailures {
            let store = makeLoadStore()
            store.send(.load) { $0.set(value: true, forKey: .isLoading) }
            store.send(.stream(count: 1))
            store.send(.stopLoading) { $0.set(value: false, forKey: .isLoading) }
            #expect(store.runningEffectIDs == [AnyHashable(LoadID.stream)])
            store.cancel(id: LoadID.stream)
        }
        #expect(failures.isEmpty)
    }

    @Test func aNewEffectReplacesTheRunningOneWithItsID() async {
        let failures = await captureFailures {
            let store = makeLoadStore()
            store.send(.load) { $0.set(value: true, forKey: .isLoading) }
            store.send(.stream(count: 1))
            store.send(.load)
            #expect(store.runningEffectIDs == [AnyHashable(LoadID.stream), AnyHashable(LoadID.load)])
            store.cancel(id: LoadID.stream)
            store.cancel(id: LoadID.load)
        }
        #expect(failures.isEmpty)
    }

    /// A replaced effect's work still runs, as in the app: its task runs, cancelled, so a settings
    /// save replaced by a newer one reaches the dependency twice; its action is not received.
    @Test func aReplacedEffectsWorkStillRunsAsInTheApp() async {
        let saves = LockedList<String>()
        let failures = await captureFailures {
            let store = TestStore(initialValues: [:], actionHandler: settingsHandler, dependency: saves)
            store.send(.save("dark"))
            store.send(.save("light"))
            #expect(saves.values.isEmpty, "send ran an effect")
            await store.receive(.saved("light")) { $0.set(value: "light", forKey: .items) }
            await store.finish()
            #expect(store.receivedActions.isEmpty)
        }
        #expect(failures.map(\.message) == [])
        #expect(saves.values == ["dark (cancelled)", "light"])
    }

    /// An immediate action (`ActionEffect(.nextPage)`) is handled before `send` returns, as in the
    /// app, and received: the effect beside it has not run yet.
    @Test func anImmediateActionIsHandledBeforeSendReturnsAndReceived() async {
        let failures = await captureFailures {
            let store = makeLoadStore(initialValues: [.page: 1])
            store.send(.loadAndPage)
            #expect(store.store.get(.page, as: Int.self) == 2)
            #expect(store.receivedActions.count == 1)
            #expect(store.runningEffectIDs == [AnyHashable(LoadID.load)])
            await store.receive(.nextPage) { $0.set(value: 2, forKey: .page) }
            await store.receive(.loaded(.success([1, 2, 3]))) { state in
                state.set(value: false, forKey: .isLoading)
                state.set(value: [1, 2, 3], forKey: .items)
            }
        }
        #expect(failures.isEmpty)
    }

    /// With exhaustivity on, a `send` while an action is received and not asserted fails (the app
    /// handled that action first); the action is then forgotten, and the next `send` passes.
    @Test func aSendWhileAReceivedActionIsUnassertedFailsOnce() async {
        var sendLine: UInt = 0
        let failures = await captureFailures {
            let store = makeLoadStore(initialValues: [.page: 1])
            store.send(.loadAndPage)
            sendLine = #line + 1
            store.send(.stopLoading) { $0.set(value: false, forKey: .isLoading) }
            store.send(.nextPage) { $0.set(value: 3, forKey: .page) }
        }
        #expect(failures.map(\.line) == [sendLine])
        #expect(failures.first?.message.hasPrefix("Expected to send .stopLoading, but an action was received") == true)
    }

    /// The dependency can be replaced between steps, without a new test store: a mock that answers
    /// differently the second time.
    @Test func theDependencyCanBeReplacedBetweenSteps() async {
        let failures = await captureFailures {
            let store = makeLoadStore()
            store.send(.load) { $0.set(value: true, forKey: .isLoading) }
            await store.receive(.loaded(.success([1, 2, 3]))) { state in
                state.set(value: false, forKey: .isLoading)
                state.set(value: [1, 2, 3], forKey: .items)
            }
            store.dependency = LoadDependency(fetch: { .failure(LoadError(reason: "offline")) }, pageSize: { 5 })
            #expect(store.dependency.pageSize() == 5)
            store.send(.load) { $0.set(value: true, forKey: .isLoading) }
            await store.receive(.loaded(.failure(LoadError(reason: "offline")))) { state in
                state.set(value: false, forKey: .isLoading)
                state.set(value: #"LoadError(reason: "offline")"#, forKey: .error)
            }
            store.send(.touchDependency) { $0.set(value: 5, forKey: .page) }
        }
        #expect(failures.isEmpty)
    }

    /// A test store over a main-actor store runs its handler on the main queue, even for a send off it.
    /// (From review 8.)
    @Test func aTestStoreOverAMainActorStoreRunsItsHandlerOnTheMainQueue() async {
        let onMainQueue = LockedList<Bool>()
        let store = Store<LoadKey, LoadAction, Void>(
            initialValues: [:],
            actionHandler: StoreActionHandler { _, _, _ in
                onMainQueue.append(MainQueueCheck.isCurrent)
                return .none
            },
            dependency: (),
            isolation: .mainActor)
        let failures = await captureFailures {
            let testStore = TestStore(store: store)
            testStore.send(.nextPage)
        }
        #expect(failures.map(\.message) == [])
        #expect(onMainQueue.values == [true], "the handler ran off the main queue")
    }

    /// A test store made with a main-actor handler tests it as its store runs it: on the main actor,
    /// its effects' actions too, from a test that is not on the main actor.
    @Test func aTestStoreRunsAMainActorHandlerOnTheMainActorWithItsEffects() async {
        let handler = StoreActionHandler<LoadKey, LoadAction, Void>.mainActor { state, action, _ in
            MainActor.assertIsolated()
            switch action {
            case .load:
                state.set(value: true, forKey: .isLoading)
                return .run { send in await send(.loaded(.success([MainQueueCheck.isCurrent ? 0 : 1]))) }
            case .loaded(.success(let items)):
                state.set(value: false, forKey: .isLoading)
                state.set(value: items + [MainQueueCheck.isCurrent ? 1 : 0], forKey: .items)
                return .none
            default:
                return .none
            }
        }
        let failures = await captureFailures {
            let store = TestStore(initialValues: [:], actionHandler: handler, dependency: ())
            store.send(.load) { $0.set(value: true, forKey: .isLoading) }
            await store.receive(.loaded(.success([1]))) { state in
                state.set(value: false, forKey: .isLoading)
                state.set(value: [1, 1], forKey: .items)  // the effect off the main queue, its action on it
            }
        }
        #expect(failures.map(\.message) == [])
    }
}

enum SettingsAction: Equatable, Sendable {
    case save(String)
    case saved(String)
}

enum SettingsID: Hashable { case save }

/// `.save` saves the settings through the dependency under one id: a newer save replaces the one
/// running. The dependency records each call, and whether its task was cancelled by then.
let settingsHandler = StoreActionHandler<LoadKey, SettingsAction, LockedList<String>> { state, action, saves in
    switch action {
    case .save(let settings):
        return ActionEffect(id: SettingsID.save) {
            saves.append(Task.isCancelled ? "\(settings) (cancelled)" : settings)
            return .saved(settings)
        }
    case .saved(let settings):
        state.set(value: settings, forKey: .items)
        return .none
    }
}

/// Whether code runs on the main queue, where the main actor runs (on Linux a worker thread may
/// serve it, so `Thread.isMainThread` is not the test).
enum MainQueueCheck {
    private static let key = DispatchSpecificKey<Bool>()
    private static let marked: Void = DispatchQueue.main.setSpecific(key: key, value: true)

    static var isCurrent: Bool {
        marked
        return DispatchQueue.getSpecific(key: key) == true
    }
}

extension TypedKey<LoadKey, Int> {
    /// `.page` as the `Int` it holds.
    fileprivate static var typedPage: Self { .init(.page, default: 0) }
}
