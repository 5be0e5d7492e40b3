import CacheStore
import Foundation
import Synchronization
import Testing

// The examples of the Effects and cancellation article (Documentation.docc/EffectsAndCancellation.md).

nonisolated enum SearchKey { case query, results, isSearching }

enum SearchAction: Equatable {
    case search(String)
    case results([String])
    case cancel
}

enum SearchID { case search }

struct SearchClient: Sendable {
    var search: @Sendable (String) async -> [String]
}

typealias SearchHandler =
    StoreActionHandler<SearchKey, SearchAction, SearchClient>

nonisolated let searchHandler = SearchHandler { state, action, client in
    switch action {
    case .search(let query):
        state.set(value: query, forKey: .query)
        state.set(value: true, forKey: .isSearching)
        return ActionEffect(id: SearchID.search) {
            .results(await client.search(query))
        }
    case .results(let results):
        state.set(value: results, forKey: .results)
        state.set(value: false, forKey: .isSearching)
        return .none
    case .cancel:
        state.set(value: false, forKey: .isSearching)
        return .cancel(id: SearchID.search)
    }
}

let clearingHandler = SearchHandler { state, action, client in
    if case .search("") = action {
        state.remove(.results)
        return ActionEffect(.cancel)
    }
    return searchHandler.handle(
        store: &state, action: action, dependency: client)
}

nonisolated enum DownloadKey { case progress, data }
enum DownloadAction {
    case start
    case progress(Double)
    case finished(Data)
}
typealias DownloadHandler =
    StoreActionHandler<DownloadKey, DownloadAction, Void>

nonisolated enum AccountKey { case name, error }
enum AccountAction: Equatable {
    case load
    case loaded(String)
    case failed(String)
}

struct AccountClient: Sendable {
    var name: @Sendable () async throws -> String
}

let accountHandler = StoreActionHandler<
    AccountKey, AccountAction, AccountClient
> { state, action, client in
    switch action {
    case .load:
        return ActionEffect(id: "account") {
            .loaded(try await client.name())
        } catch: { error in
            .failed("\(error)")
        }
    case .loaded(let name):
        state.set(value: name, forKey: .name)
    case .failed(let reason):
        state.set(value: reason, forKey: .error)
    }
    return .none
}

let downloadHandler = DownloadHandler { state, action, _ in
    switch action {
    case .start:
        return .run(id: "download") { send in
            var data = Data()
            for chunk in 1...4 {
                data.append(contentsOf: [UInt8(chunk)])
                await send(.progress(Double(chunk) / 4))
            }
            await send(.finished(data))
        }
    case .progress(let fraction):
        state.set(value: fraction, forKey: .progress)
    case .finished(let data):
        state.set(value: data, forKey: .data)
    }
    return .none
}

/// A search backend whose answers wait until the test releases them, so searches overlap.
actor Catalog {
    private var released = false
    /// How many searches returned, released or cancelled.
    private(set) var finished = 0

    func matches(for query: String) async -> [String] {
        while !released, !Task.isCancelled { try? await Task.sleep(for: .milliseconds(1)) }
        finished += 1
        return ["\(query) result"]
    }

    func release() { released = true }

    /// A search store whose client asks this catalog.
    nonisolated func searchStore(
        _ handler: StoreActionHandler<SearchKey, SearchAction, SearchClient> = searchHandler,
        initialValues: [SearchKey: Any] = [:]
    ) -> Store<SearchKey, SearchAction, SearchClient> {
        Store(
            initialValues: initialValues, actionHandler: handler,
            dependency: SearchClient(search: { query in await self.matches(for: query) }))
    }
}

@Suite(.timeLimit(.minutes(2))) struct EffectsExamples {
    @Test func aNewSearchCancelsTheOneInFlight() async {
        let slowClient = SearchClient { query in
            try? await Task.sleep(for: .milliseconds(300))  // a slow network
            return ["\(query) result"]
        }

        let search = Store(
            initialValues: [:], actionHandler: searchHandler, dependency: slowClient)
        search.handle(action: .search("s"))
        search.handle(action: .search("sw"))
        search.handle(action: .search("swift"))  // cancels "s" and "sw"
        #expect(search.runningEffectIDs == [AnyHashable(SearchID.search)])

        #expect(await eventually { search.get(.isSearching, as: Bool.self) == false })
        #expect(search.get(.results, as: [String].self) == ["swift result"])
        #expect(search.runningEffectIDs.isEmpty)
    }

    @Test func cancelOnRequest() async {
        let catalog = Catalog()
        let search = catalog.searchStore()
        search.handle(action: .search("swift"))
        let wasRunning = search.cancel(id: SearchID.search)
        #expect(wasRunning)
        #expect(!search.cancel(id: SearchID.search))

        search.handle(action: .search("swift"))
        search.handle(action: .cancel)
        #expect(search.get(.isSearching, as: Bool.self) == false)
        #expect(search.runningEffectIDs.isEmpty)
        await catalog.release()
        try? await Task.sleep(for: .milliseconds(50))
        #expect(search.get(.results, as: [String].self) == nil)  // cancelled effects delivered nothing
    }

    @Test func anImmediateEffectIsHandledBeforeHandleReturns() async {
        let catalog = Catalog()
        let search = catalog.searchStore(clearingHandler, initialValues: [.results: ["old"]])
        search.handle(action: .search("sw"))
        #expect(search.get(.isSearching, as: Bool.self) == true)
        search.handle(action: .search(""))
        #expect(search.get(.results, as: [String].self) == nil)
        #expect(search.get(.isSearching, as: Bool.self) == false)  // .cancel ran before `handle` returned
        #expect(search.runningEffectIDs.isEmpty)
    }

    @Test func aRunEffectSendsSeveralActions() async {
        let reports = Mutex<[String]>([])
        let store = Store(initialValues: [:], actionHandler: downloadHandler).debug { report in
            reports.withLock { $0.append(report) }
        }
        store.handle(action: .start)
        #expect(await eventually { store.get(.data, as: Data.self) == Data([1, 2, 3, 4]) })
        // The last report is written just after the state it reports becomes visible.
        #expect(await eventually { reports.withLock { $0.count } == 6 })
        #expect(store.get(.progress, as: Double.self) == 1)
        let actions = reports.withLock { $0 }.compactMap { $0.split(separator: "\n").first }
        #expect(
            actions == [
                "[CacheStore] Action: .start", "[CacheStore] Action: .progress(0.25)",
                "[CacheStore] Action: .progress(0.5)", "[CacheStore] Action: .progress(0.75)",
                "[CacheStore] Action: .progress(1.0)", "[CacheStore] Action: .finished(Data(4 bytes))",
            ])
    }

    @Test func anEffectThatThrowsDeliversWhatItsCatchMakes() async {
        let loaded = Store(
            initialValues: [:], actionHandler: accountHandler, dependency: AccountClient(name: { "Ada" }))
        loaded.handle(action: .load)
        #expect(await eventually { loaded.get(.name, as: String.self) == "Ada" })
        let failing = Store(
            initialValues: [:], actionHandler: accountHandler,
            dependency: AccountClient(name: { throw URLError(.notConnectedToInternet) }))
        failing.handle(action: .load)
        #expect(await eventually { failing.get(.error, as: String.self) != nil })
        #expect(failing.get(.name, as: String.self) == nil)
    }

    @Test func releasingTheStoreCancelsItsEffects() async {
        let catalog = Catalog()
        weak var released: Store<SearchKey, SearchAction, SearchClient>?
        do {
            let search = catalog.searchStore()
            search.handle(action: .search("swift"))
            released = search
        }
        #expect(released == nil)
        // The catalog was never released: the search returned because its task was cancelled.
        #expect(await eventually { await catalog.finished == 1 })
    }
}
