import CacheStoreTesting
import Testing

@Suite(.timeLimit(.minutes(1))) struct UnimplementedTests {
    @Test func callingAnUnimplementedDependencyFailsAndReturnsThePlaceholder() async {
        var madeAt: UInt = 0
        let failures = await captureFailures {
            madeAt = #line + 1
            let pageSize: @Sendable () -> Int = unimplemented("pageSize", placeholder: 7)
            #expect(pageSize() == 7)
        }
        #expect(
            failures == [
                CapturedFailure(
                    message: """
                        Unimplemented: pageSize was called.
                        The test did not expect this dependency to be used. Give the test a dependency that \
                        implements pageSize, or fix the code that calls it.
                        """,
                    line: madeAt)
            ])
    }

    @Test func zeroToThreeArgumentsSyncOrAsyncInferredFromContext() async {
        let failures = await captureFailures {
            let none: @Sendable () -> String = unimplemented("none", placeholder: "0")
            let one: @Sendable (Int) -> String = unimplemented("one", placeholder: "1")
            let two: @Sendable (Int, String) async -> String = unimplemented("two", placeholder: "2")
            let three: @Sendable (Int, String, Bool) async -> String = unimplemented("three", placeholder: "3")
            #expect(none() == "0")
            #expect(one(1) == "1")
            #expect(await two(1, "a") == "2")
            #expect(await three(1, "a", true) == "3")
        }
        #expect(
            failures.map { $0.message.components(separatedBy: "\n")[0] } == [
                "Unimplemented: none was called.",
                "Unimplemented: one was called.",
                "Unimplemented: two was called.",
                "Unimplemented: three was called.",
            ])
    }

    @Test func anUnimplementedDependencyInAHandlerFailsTheTest() async {
        let failures = await captureFailures {
            let store = makeLoadStore(
                LoadDependency(
                    fetch: unimplemented("fetch", placeholder: .success([])),
                    pageSize: unimplemented("pageSize", placeholder: 0)))
            store.send(.touchDependency) { $0.set(value: 0, forKey: .page) }
        }
        #expect(failures.map { $0.message.components(separatedBy: "\n")[0] } == ["Unimplemented: pageSize was called."])
    }

    @Test func anUnimplementedDependencyCalledInsideAnEffectIsReportedToo() async {
        let failures = await captureFailures {
            let store = makeLoadStore(
                LoadDependency(fetch: unimplemented("fetch", placeholder: .success([])), pageSize: { 0 }))
            store.send(.load) { $0.set(value: true, forKey: .isLoading) }
            await store.receive(.loaded(.success([]))) { state in
                state.set(value: false, forKey: .isLoading)
                state.set(value: [Int](), forKey: .items)
            }
        }
        #expect(failures.map { $0.message.components(separatedBy: "\n")[0] } == ["Unimplemented: fetch was called."])
    }
}
