import CacheStoreTesting
import Testing
import XCTest

/// Failures reported natively: to Swift Testing inside a `@Test`, to XCTest otherwise, at the
/// caller's line.
@Suite(.timeLimit(.minutes(1))) struct SwiftTestingReportingTests {
    @Test func failuresAreRecordedAsIssuesAtTheCallersLocation() {
        let store = makeLoadStore()
        let sendLine = #line + 2
        withKnownIssue {
            store.send(.nextPage) { _ in }
        } matching: { issue in
            issue.sourceLocation?.line == sendLine
                && issue.sourceLocation?.fileName == "NativeReportingTests.swift"
                && issue.comments.contains { $0.rawValue.hasPrefix("State after .nextPage does not match") }
        }
    }

    @Test func leftoverEffectsAreRecordedWhereTheTestStoreWasMade() {
        let madeLine = #line + 2
        withKnownIssue {
            let store = makeLoadStore()
            store.send(.load) { $0.set(value: true, forKey: .isLoading) }
        } matching: { issue in
            issue.sourceLocation?.line == madeLine
                && issue.comments.contains {
                    $0.rawValue.contains("the effect .load is still running, started by .load")
                }
        }
    }
}

/// Runs on XCTest, where failures go to `XCTFail`. Inside `capturingFailures` they are captured instead
/// of failing the test; everywhere else they fail it as usual.
final class XCTestReportingTests: XCTestCase {
    private var captured: [(description: String, line: Int)] = []
    private var isCapturing = false

    override func recordFailure(
        withDescription description: String, inFile filePath: String, atLine lineNumber: Int, expected: Bool
    ) {
        guard isCapturing else {
            return super.recordFailure(
                withDescription: description, inFile: filePath, atLine: lineNumber, expected: expected)
        }
        captured.append((description, lineNumber))
    }

    private func capturingFailures(_ body: () -> Void) -> [(description: String, line: Int)] {
        isCapturing = true
        body()
        isCapturing = false
        defer { captured = [] }
        return captured
    }

    func testFailuresGoToXCTFailAtTheCallersLine() {
        let store = makeLoadStore()
        var sendLine = 0
        let failures = capturingFailures {
            sendLine = #line + 1
            store.send(.nextPage) { _ in }
        }
        XCTAssertEqual(failures.count, 1)
        XCTAssertEqual(failures.first?.line, sendLine)
        XCTAssertTrue(failures.first?.description.contains("State after .nextPage does not match") == true)
    }

    func testSynchronousReceiveOnTheMainThreadLetsEffectsUseTheMainActor() {
        XCTAssertTrue(Thread.isMainThread)
        let mainActorFetch = LoadDependency(
            fetch: { await MainActor.run { .success([7]) } },
            pageSize: { 0 })
        let store = makeLoadStore(mainActorFetch)
        store.effectTimeout = .seconds(2)  // a deadlock fails the test in 2 s instead of hanging it
        store.send(.load) { $0.set(value: true, forKey: .isLoading) }
        store.receive(.loaded(.success([7]))) { state in
            state.set(value: false, forKey: .isLoading)
            state.set(value: [7], forKey: .items)
        }
    }

    /// The synchronous `receive`, on the main thread, of a store that handles its actions on the main
    /// actor: each action the effect sends waits for the main queue, which the receive keeps running.
    func testSynchronousReceiveOnTheMainThreadOfAMainActorStore() {
        XCTAssertTrue(Thread.isMainThread)
        let store = TestStore(
            store: Store(initialValues: [:], actionHandler: loadHandler, dependency: .mock, isolation: .mainActor))
        store.effectTimeout = .seconds(2)  // a deadlock fails the test in 2 s instead of hanging it
        let failures = capturingFailures {
            store.send(.stream(count: 2))
            store.receive(.streamed(1)) { $0.set(value: [1], forKey: .items) }
            store.receive(.streamed(2)) { $0.set(value: [1, 2], forKey: .items) }
            store.finish()
        }
        XCTAssertEqual(failures.map(\.description), [])
    }
}
