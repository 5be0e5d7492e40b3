import CacheStore
import Foundation
import Testing

@Suite(.timeLimit(.minutes(2))) struct CacheStoreTests {
    @Test func getReturnsTypedValuesAndNilForMissingOrMistypedKeys() {
        let cache = CacheStore<Key>(initialValues: [.count: 1, .name: "Ada"])
        #expect(cache.get(.count, as: Int.self) == 1)
        #expect(cache.get(.name) == "Ada")
        #expect(cache.get(.count, as: String.self) == nil)
        #expect(cache.get(.flag, as: Bool.self) == nil)
    }

    @Test func setStoresAndReplacesValues() {
        let cache = CacheStore<Key>(initialValues: [:])
        cache.set(value: 1, forKey: .count)
        cache.set(value: 2, forKey: .count)
        #expect(cache.get(.count, as: Int.self) == 2)
        cache.set(value: "now a string", forKey: .count)
        #expect(cache.get(.count, as: Int.self) == nil)
        #expect(cache.get(.count, as: String.self) == "now a string")
    }

    @Test func settingNilOptionalRemovesTheKey() {
        let cache = CacheStore<Key>(initialValues: [.count: 1])
        cache.set(value: nil as Int?, forKey: .count)
        #expect(!cache.contains(.count))
        #expect(cache.allValues.isEmpty)
    }

    @Test func settingNonNilOptionalStoresTheWrappedValue() {
        let cache = CacheStore<Key>(initialValues: [:])
        let maybe: Int? = 5
        cache.set(value: maybe, forKey: .count)
        #expect(cache.get(.count, as: Int.self) == 5)
        let anyOptional: Any = Optional(Optional("nested")) as Any
        cache.set(value: anyOptional, forKey: .name)
        #expect(cache.get(.name, as: String.self) == "nested")
    }

    @Test func initialValuesDropNilOptionalsAndUnwrapTheRest() {
        let cache = CacheStore<Key>(initialValues: [
            .url: URL(string: "https://example.com") as Any,
            .name: (nil as String?) as Any,
        ])
        #expect(cache.get(.url, as: URL.self)?.host == "example.com")
        #expect(!cache.contains(.name))
        #expect(cache.allValues.count == 1)
    }

    @Test func removeAndContains() {
        let cache = CacheStore<Key>(initialValues: [.count: 1])
        #expect(cache.contains(.count))
        cache.remove(.count)
        #expect(!cache.contains(.count))
        cache.remove(.count)  // removing an absent key does nothing
        #expect(cache.allValues.isEmpty)
    }

    @Test func updateReadsModifiesAndWritesBack() {
        let cache = CacheStore<Key>(initialValues: [.count: 1])
        cache.update(.count, as: Int.self) { count in count = (count ?? 0) + 10 }
        #expect(cache.get(.count, as: Int.self) == 11)
        cache.update(.name, as: String.self) { name in
            #expect(name == nil)
            name = "created"
        }
        #expect(cache.get(.name, as: String.self) == "created")
        cache.update(.name, as: String.self) { name in name = nil }
        #expect(!cache.contains(.name))
    }

    @Test func concurrentUpdatesLoseNothing() async {
        let cache = CacheStore<Key>(initialValues: [.count: 0])
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<4 {
                group.addTask {
                    for _ in 0..<1_000 { cache.update(.count, as: Int.self) { $0 = ($0 ?? 0) + 1 } }
                }
            }
        }
        #expect(cache.get(.count, as: Int.self) == 4_000)
    }

    @Test func valuesInCacheFiltersByType() {
        let cache = CacheStore<Key>(initialValues: [.count: 1, .item(1): 2, .name: "x"])
        #expect(cache.valuesInCache(ofType: Int.self) == [.count: 1, .item(1): 2])
        #expect(cache.valuesInCache(ofType: String.self) == [.name: "x"])
        let bools: [Key: Bool] = cache.valuesInCache()
        #expect(bools.isEmpty)
    }

    @Test func copyIsAnIndependentSnapshot() {
        let cache = CacheStore<Key>(initialValues: [.count: 1])
        let copy = cache.copy()
        cache.set(value: 2, forKey: .count)
        copy.set(value: "copy only", forKey: .name)
        #expect(copy.get(.count, as: Int.self) == 1)
        #expect(!cache.contains(.name))
    }

    @Test func resolveReturnsTheTypedValue() throws {
        let cache = CacheStore<Key>(initialValues: [.count: 3])
        #expect(try cache.resolve(.count, as: Int.self) == 3)
    }
}
