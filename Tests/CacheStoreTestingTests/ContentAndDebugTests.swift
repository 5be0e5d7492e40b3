import CacheStoreTesting
import Testing

struct PageContent: StoreContent {
    let title: String

    init(store: Store<LoadKey, Void, Void>) {
        title = "Page \(store.get(.page, as: Int.self) ?? 0)"
    }
}

struct ContentCheckError: Error {}

@Suite(.timeLimit(.minutes(1))) struct ContentAndDebugTests {
    @Test func contentIsBuiltFromTheStoreUnderTest() async {
        let failures = await captureFailures {
            let store = makeLoadStore(initialValues: [.page: 1])
            store.send(.nextPage) { $0.set(value: 2, forKey: .page) }
            #expect(store.content(using: PageContent.self).title == "Page 2")
            var checked: [String] = []
            store.content(using: PageContent.self) { content in checked.append(content.title) }
            #expect(checked == ["Page 2"])
        }
        #expect(failures.isEmpty)
    }

    @Test func anErrorThrownByTheContentCheckIsAFailureAtTheCaller() async {
        var line: UInt = 0
        let failures = await captureFailures {
            let store = makeLoadStore(initialValues: [.page: 1])
            line = #line + 1
            store.content { (_: PageContent) in throw ContentCheckError() }
        }
        #expect(
            failures == [
                CapturedFailure(message: "The expectation about PageContent threw ContentCheckError().", line: line)
            ])
    }

    @Test func debugReportsEachActionTheTestStoreHandles() async {
        let reports = LockedList<String>()
        let failures = await captureFailures {
            let store = makeLoadStore(initialValues: [.page: 1]).debug { reports.append($0) }
            store.send(.nextPage) { $0.set(value: 2, forKey: .page) }
            store.send(.load) { $0.set(value: true, forKey: .isLoading) }
            await store.receive(.loaded(.success([1, 2, 3]))) {
                $0.set(value: false, forKey: .isLoading)
                $0.set(value: [1, 2, 3], forKey: .items)
            }
        }
        #expect(failures.isEmpty)
        #expect(
            reports.values == [
                "[CacheStore] Action: .nextPage\n  ~ .page: 1 → 2",
                "[CacheStore] Action: .load\n  + .isLoading: true",
                """
                [CacheStore] Action: .loaded(.success([1, 2, 3]))
                  ~ .isLoading: true → false
                  + .items: [1, 2, 3]
                """,
            ])
    }

    @Test func debugReturnsTheSameTestStore() {
        let store = makeLoadStore()
        #expect(store.debug === store)
        #expect(store.debug { _ in } === store)
    }
}
