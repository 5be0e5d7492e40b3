import CacheStore
import Foundation
import Testing

@Suite(.timeLimit(.minutes(2))) struct CacheStoreErrorTests {
    @Test func resolveOfAMissingKeyThrowsMissingRequiredKeys() {
        let cache = CacheStore<Key>(initialValues: [:])
        #expect {
            try cache.resolve(.url, as: URL.self)
        } throws: { error in
            let missing = error as? CacheStore<Key>.MissingRequiredKeysError
            return missing?.keys == [.url] && "\(error)" == "Missing required keys (1): .url"
        }
    }

    @Test func resolveOfAMistypedValueNamesKeyAndBothTypes() throws {
        let cache = CacheStore<Key>(initialValues: [.url: "not a url"])
        let error = try #require(throws: CacheStore<Key>.InvalidTypeError.self) {
            try cache.resolve(.url, as: URL.self)
        }
        #expect(error.key == .url)
        #expect(ObjectIdentifier(error.expectedType) == ObjectIdentifier(URL.self))
        #expect(error.actualValue as? String == "not a url")
        #expect(error.description == #"Key .url was read as URL, but holds String ("not a url")."#)
    }

    @Test func requireListsEveryMissingKeySorted() throws {
        let cache = CacheStore<Key>(initialValues: [.count: 1])
        let error = try #require(throws: CacheStore<Key>.MissingRequiredKeysError.self) {
            try cache.require(keys: [.count, .url, .name])
        }
        #expect(error.keys == [.url, .name])
        #expect(error.description == "Missing required keys (2): .name, .url")
    }

    @Test func requireChainsWhenKeysArePresent() throws {
        let cache = CacheStore<Key>(initialValues: [.count: 1, .name: "x"])
        let same = try cache.require(.count).require(keys: [.name])
        #expect(same === cache)
    }

    @Test func missingKeysDescriptionIsTruncatedWithACount() throws {
        let cache = CacheStore<Int>(initialValues: [:])
        let error = try #require(throws: CacheStore<Int>.MissingRequiredKeysError.self) {
            try cache.require(keys: Set(0..<1_000))
        }
        #expect(error.keys.count == 1_000)
        #expect(error.description.hasPrefix("Missing required keys (1000): "))
        #expect(error.description.hasSuffix(", … and 980 more"))
        #expect(error.description.count < 300)
    }
}
