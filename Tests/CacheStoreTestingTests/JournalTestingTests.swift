import CacheStore
import CacheStoreTesting
import Foundation
import Testing

enum SessionKey: Hashable, Sendable { case query, results, searches, ticks }

extension TypedKey<SessionKey, String> {
    static var query: Self { .init(.query, default: "") }
}

extension TypedKey<SessionKey, [String]> {
    static var results: Self { .init(.results, default: []) }
}

extension TypedKey<SessionKey, Int> {
    static var searches: Self { .init(.searches, default: 0) }
    static var ticks: Self { .init(.ticks, default: 0) }
}

enum SessionAction: Codable, Equatable, Sendable {
    /// Sets the query and searches for it, debounced.
    case type(String)
    case searched([String])
    /// Starts a stream that sends `.tick` `count` times.
    case startTicker(count: Int)
    case tick(Int)
    /// Cancels the ticker.
    case stopTicker
}

struct SessionDependency<C: Clock<Duration>>: Sendable {
    var search: @Sendable (String) async -> [String]
    var clock: C
}

/// A search debounced on the dependency's clock, and a ticker stream that can be cancelled.
func sessionHandler<C: Clock<Duration>>() -> StoreActionHandler<SessionKey, SessionAction, SessionDependency<C>> {
    StoreActionHandler { state, action, dependency in
        switch action {
        case .type(let query):
            state[.query] = query
            return ActionEffect.run { send in await send(.searched(await dependency.search(query))) }
                .debounce(id: "search", for: .microseconds(300), clock: dependency.clock)
        case .searched(let results):
            state[.results] = results
            state[.searches] += 1
        case .startTicker(let count):
            return .run(id: "ticker") { send in
                for index in 0..<count { await send(.tick(index)) }
            }
        case .tick:
            state[.ticks] += 1
        case .stopTicker:
            return .cancel(id: "ticker")
        }
        return .none
    }
}

/// A clock every use of which fails the test: a replay must not run the effects that wait on it.
struct UnimplementedClock: Clock {
    let reportUse: @Sendable () -> Void = unimplemented("clock", placeholder: ())

    var now: ContinuousClock.Instant {
        reportUse()
        return ContinuousClock.now
    }

    var minimumResolution: Duration { .zero }

    func sleep(until deadline: ContinuousClock.Instant, tolerance: Duration?) async throws {
        reportUse()
    }
}

func sessionJournal(_ file: URL) -> Journal<SessionKey, SessionAction> {
    Journal(file: file).recording(.query).recording(.results).recording(.searches).recording(.ticks)
}

/// A journal is a test: a recorded session replays through today's handler with every dependency
/// unimplemented, to the recorded state byte for byte, or fails at the first step that differs.
@Suite(.timeLimit(.minutes(2))) struct JournalTestingTests {
    /// Records a session of at least 10,000 actions: typed queries debounced on a real clock, ticker
    /// streams, some cancelled at once.
    static func recordSession(to file: URL) async throws -> String {
        let live = SessionDependency(search: { query in [query, query.uppercased()] }, clock: ContinuousClock())
        let store = Store(initialValues: [:], actionHandler: sessionHandler(), dependency: live)
        let recorder = try store.startRecording(sessionJournal(file))
        var round = 0
        while recorder.recordedSteps < 10_000 {
            for letter in ["s", "sw", "swi"] { store.handle(action: .type("\(letter)\(round)")) }
            store.handle(action: .startTicker(count: 4))
            if round.isMultiple(of: 3) { store.handle(action: .stopTicker) }
            while !store.runningEffectIDs.isEmpty { await Task.yield() }
            round += 1
        }
        recorder.stop()
        #expect(recorder.problems == [])
        // The live state as a journal writes it: a recording started now begins with it.
        let snapshot = file.appendingPathExtension("live")
        defer { try? FileManager.default.removeItem(at: snapshot) }
        try store.startRecording(sessionJournal(snapshot)).stop()
        return String(
            decoding: try RecordedJournal(contentsOf: snapshot, journal: sessionJournal(snapshot)).stateJSON(at: 0),
            as: UTF8.self)
    }

    @Test func aSessionOfTenThousandActionsReplaysByteForByteCallingNoDependency() async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("search-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: file) }
        let live = try await Self.recordSession(to: file)
        let recorded = try RecordedJournal(contentsOf: file, journal: sessionJournal(file))
        #expect(recorded.steps >= 10_000)
        let origins = try recorded.steps(0..<recorded.steps).map(\.origin)
        #expect(origins.contains(.effect(id: "\"search\"")))
        #expect(origins.contains(.effect(id: "\"ticker\"")))

        let replayed = recorded.assertReplays(
            actionHandler: sessionHandler(),
            dependency: SessionDependency(search: unimplemented("search", placeholder: []), clock: UnimplementedClock())
        )
        #expect(replayed?.divergence == nil)
        #expect(String(decoding: try #require(replayed).stateJSON, as: UTF8.self) == live)
        #expect(try recorded.stateJSON(at: recorded.steps) == replayed?.stateJSON)
        #expect(live.contains(#"".searches":"#))
    }

    @Test func aChangedHandlerFailsAtTheFirstStepThatDiffersWithTheUsualDiff() async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("search-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: file) }
        let store = Store(
            initialValues: [:], actionHandler: sessionHandler(),
            dependency: SessionDependency(search: { [$0] }, clock: ContinuousClock()))
        let recorder = try store.startRecording(sessionJournal(file))
        store.handle(action: .startTicker(count: 2))
        while store[.ticks] < 2 { await Task.yield() }
        store.handle(action: .searched(["a"]))
        recorder.stop()
        let recorded = try RecordedJournal(contentsOf: file, journal: sessionJournal(file))

        let base: StoreActionHandler<SessionKey, SessionAction, SessionDependency<UnimplementedClock>> =
            sessionHandler()
        let doubled = StoreActionHandler<SessionKey, SessionAction, SessionDependency<UnimplementedClock>> {
            state, action, dependency in
            if case .searched(let results) = action {
                state[.results] = results + results
                state[.searches] += 1
                return .none
            }
            return base.handle(store: &state, action: action, dependency: dependency)
        }
        var line: UInt = 0
        let failures = await captureFailures {
            line = #line + 1
            recorded.assertReplays(
                actionHandler: doubled,
                dependency: SessionDependency(
                    search: unimplemented("search", placeholder: []), clock: UnimplementedClock()))
        }
        #expect(
            failures == [
                CapturedFailure(
                    message: """
                        Replaying the journal, step 3 (sequence 4, sent .searched(["a"])) leaves a state that \
                        differs from the recording (− recorded, + replayed):
                          .results
                        −   ["a"]
                        +   ["a", "a"]
                        Fix the handler, or record the journal again if the change is meant.
                        """,
                    line: line)
            ])
    }

    @Test func aJournalThatCannotBeReplayedFails() async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("search-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: file) }
        let store = Store(
            initialValues: [SessionKey.searches: 1], actionHandler: sessionHandler(),
            dependency: SessionDependency(search: { [$0] }, clock: ContinuousClock()))
        try store.startRecording(sessionJournal(file)).stop()
        // Read as recording `.searches` as a String: its recorded value does not decode.
        let wrongType = Journal<SessionKey, SessionAction>(file: file).recording(.query).recording(.results)
            .recording(TypedKey<SessionKey, String>(.searches, default: "")).recording(.ticks)
        let recorded = try RecordedJournal(contentsOf: file, journal: wrongType)
        let failures = await captureFailures {
            recorded.assertReplays(
                actionHandler: sessionHandler(),
                dependency: SessionDependency(
                    search: unimplemented("search", placeholder: []), clock: UnimplementedClock()))
        }
        #expect(failures.map(\.message).count == 1)
        #expect(
            failures.first?.message.hasPrefix(
                "The journal could not be replayed: a recorded value of .searches is not a String: ") == true)
    }
}
