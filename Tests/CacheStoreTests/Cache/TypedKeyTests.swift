import CacheStore
import Foundation
import Observation
import Testing

extension TypedKey<CacheStoreTests_TypedKey.Plain, Int> {
    static var count: Self { .init(.count, default: 0) }
}

extension TypedKey<CacheStoreTests_TypedKey.Plain, String?> {
    static var nickname: Self { .init(.nickname, default: nil) }
}

extension TypedKey<CacheStoreTests_TypedKey.Plain, [String]> {
    static var tags: Self { .init(.tags, default: []) }
}

/// The plain keys under the typed keys of ``TypedKeyTests``.
enum CacheStoreTests_TypedKey {
    enum Plain: Hashable, Sendable { case count, nickname, tags, other }
    enum Action: Sendable {
        case increment
        case tag(String)
        case rename(String?)
    }
}

/// A typed key reads its value as its type, or its default; writes go to its plain key; and it works
/// wherever the plain key does.
@Suite(.timeLimit(.minutes(2))) struct TypedKeyTests {
    typealias Plain = CacheStoreTests_TypedKey.Plain
    typealias Action = CacheStoreTests_TypedKey.Action

    static let handler = StoreActionHandler<Plain, Action, Void> { state, action, _ in
        switch action {
        case .increment: state[.count] += 1
        case .tag(let tag): state[.tags].append(tag)
        case .rename(let name): state[.nickname] = name
        }
        return .none
    }

    @Test func anAbsentKeyReadsAsItsDefault() {
        let cache = CacheStore<Plain>(initialValues: [:])
        #expect(cache[.count] == 0)
        #expect(cache[.tags] == [])
        #expect(cache[.nickname] == nil)
        #expect(cache.allValues.isEmpty, "a read wrote the default")
    }

    @Test func writesGoToThePlainKeyAndReadBack() {
        let cache = CacheStore<Plain>(initialValues: [:])
        cache[.count] += 2
        cache[.tags].append("swift")
        cache[.nickname] = "Ada"
        #expect(cache[.count] == 2)
        #expect(cache.get(.count, as: Int.self) == 2)
        #expect(cache.get(.tags, as: [String].self) == ["swift"])
        #expect(cache.get(.nickname, as: String.self) == "Ada")
    }

    @Test func writingNilToAnOptionalKeyRemovesIt() {
        let cache = CacheStore<Plain>(initialValues: [.nickname: "Ada"])
        cache[.nickname] = nil
        #expect(!cache.contains(.nickname))
        #expect(cache[.nickname] == nil)
    }

    @Test func aValueOfAnotherTypeReadsAsTheDefaultAndResolveNamesBothTypes() throws {
        let cache = CacheStore<Plain>(initialValues: [.count: "seven"])
        #expect(cache[.count] == 0)
        let error = try #require(throws: CacheStore<Plain>.InvalidTypeError.self) { try cache.resolve(.count) }
        #expect(error.description == #"Key .count was read as Int, but holds String ("seven")."#)
        #expect(throws: CacheStore<Plain>.MissingRequiredKeysError.self) { try cache.resolve(.tags) }
        cache[.count] = 7
        #expect(try cache.resolve(.count) == 7)
    }

    @Test func updateStartsFromTheDefaultAndLosesNoIncrementAcrossThreads() {
        let cache = CacheStore<Plain>(initialValues: [:])
        onThreads(4) { _ in
            for _ in 0..<500 { cache.update(.count) { $0 += 1 } }
        }
        #expect(cache[.count] == 2_000)
    }

    @Test func aHandlerWritesThroughTypedKeysAndTheStoreReadsThem() {
        let store = Store(initialValues: [:], actionHandler: Self.handler)
        store.handle(action: .increment)
        store.handle(action: .increment)
        store.handle(action: .tag("a"))
        store.handle(action: .rename("Ada"))
        #expect(store[.count] == 2)
        #expect(store[.tags] == ["a"])
        #expect(store[.nickname] == "Ada")
        store.handle(action: .rename(nil))
        #expect(!store.contains(.nickname))
        #expect(throws: CacheStore<Plain>.MissingRequiredKeysError.self) { try store.resolve(.nickname) }
    }

    @Test func readingATypedKeyTracksItsPlainKeyOnly() {
        let store = Store(initialValues: [:], actionHandler: Self.handler)
        let fired = fireCount { _ = store[.count] }
        store.handle(action: .tag("a"))
        #expect(fired.values.isEmpty)
        store.handle(action: .increment)
        #expect(fired.values.count == 1)
    }

    @Test func changesNameThePlainKey() async {
        let store = Store(initialValues: [:], actionHandler: Self.handler)
        var iterator = store.changes.makeAsyncIterator()
        store.handle(action: .increment)
        let changed = await iterator.next()
        #expect(changed?.contains(.count) == true)
        #expect(changed?.contains(.tags) == false)
    }

    @Test func aScopedCacheMapsAFeaturesTypedKeyToTheAppsKey() {
        let app = CacheStore<Key>(initialValues: [.count: 3])
        let feature = app.scope(
            keyTransformation: (
                from: { key in key == .count ? Plain.count : nil }, to: { key in key == .count ? Key.count : nil }
            ))
        #expect(feature[.count] == 3)
        feature[.count] += 1
        #expect(app.get(.count, as: Int.self) == 4)
    }

    @Test func aLiftedFeatureHandlerUsesItsTypedKeysOverTheAppsKeys() {
        let lifted = StoreActionHandler<Key, Action, Void>.scope(
            keyTransformation: (
                from: { key in key == .count ? Plain.count : nil }, to: { key in key == .count ? Key.count : nil }
            ),
            actionHandler: Self.handler, extractAction: { $0 }, embedAction: { $0 },
            dependencyTransformation: { _ in () })
        let app = Store(initialValues: [.count: 10], actionHandler: lifted)
        app.handle(action: .increment)
        #expect(app.get(.count, as: Int.self) == 11)
        #expect(app.allValues.count == 1, "the feature wrote a key the app does not map")
    }

    @Test func aTypedKeyDescribesItsPlainKeyAndType() {
        #expect(TypedKey<Plain, Int>.count.description == ".count as Int")
        #expect(TypedKey<Plain, String?>.nickname.description == ".nickname as Optional<String>")
    }
}
