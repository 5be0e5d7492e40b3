import Testing

/// The suites that start processes (HTTP servers, the demo binary, tmux) run one test at a time: a
/// process started while another test's pipes are open could inherit them and keep them open. They
/// wait for those processes synchronously, so they run on a thread of their own (one for all of
/// them): on the concurrency pool they held one of its two threads for the whole chain (20 s in the
/// plain run, about 120 s under ThreadSanitizer), and every other test waited for the other one.
@Suite(.serialized, .onAThreadOfItsOwn, .timeLimit(.minutes(2))) enum ExternalProcessTests {}

extension Trait where Self == OwnThreadTrait {
    /// Runs each test of the suite, and of the suites in it, on ``ThreadExecutor/processTests``.
    static var onAThreadOfItsOwn: Self { Self() }
}

/// Runs each test on ``ThreadExecutor/processTests`` (where task executors are available), by a
/// task executor preference: the test's code, and any task it starts, runs on that thread.
struct OwnThreadTrait: SuiteTrait, TestTrait, TestScoping {
    var isRecursive: Bool { true }

    func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        guard testCase != nil, #available(macOS 15, iOS 18, tvOS 18, watchOS 11, *) else {
            try await function()
            return
        }
        try await withTaskExecutorPreference(ThreadExecutor.processTests) { try await function() }
    }
}
