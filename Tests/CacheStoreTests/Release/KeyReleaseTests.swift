import CacheStore
import Foundation
import Testing

/// A key can be a user value too: an enum with a class payload, equal by an id. Wherever the cache lets go of
/// its copy of such a key (the key removed with an equal but distinct key) or its `changes` stream does (too
/// many waiting keys merged into "every key", or the consumer taking them), the payload's `deinit` runs with
/// no lock held, as a value's does ("No lock is held while user code runs or a user value is released").
@Suite(.timeLimit(.minutes(2))) struct KeyReleaseTests {
    final class Token: Hashable, @unchecked Sendable {
        let id: Int
        let onRelease: @Sendable () -> Void

        init(id: Int, onRelease: @escaping @Sendable () -> Void = {}) {
            self.id = id
            self.onRelease = onRelease
        }

        deinit { onRelease() }

        static func == (lhs: Token, rhs: Token) -> Bool { lhs.id == rhs.id }
        func hash(into hasher: inout Hasher) { hasher.combine(id) }
    }

    enum TokenKey: Hashable, Sendable {
        case token(Token)
        case item(Int)
        case other
    }

    @Test func removingAKeyWhoseStoredCopyReadsTheCacheOnRelease() async {
        let cache = CacheStore<TokenKey>(initialValues: [.other: 1])
        let seen = AttackBox<Int?>(nil)
        cache.set(
            value: "token value",
            forKey: .token(Token(id: 1) { [weak cache] in seen.value = cache?.get(.other, as: Int.self) }))
        let finished = await expectFinishes("remove(_:) releasing its copy of a key that reads the cache", within: 30) {
            cache.remove(.token(Token(id: 1)))
        }
        guard finished else { return }
        #expect(seen.value == 1)
    }

    // MARK: - Keys the changes stream keeps

    /// Sets, then removes, a token key whose release writes `.other`: afterwards the only instance of
    /// the token left is the one the subscribed, unconsumed `changes` iterator keeps.
    static func leaveTokenOnlyInTheStream(of cache: CacheStore<TokenKey>) {
        cache.set(value: 1, forKey: .token(Token(id: 1) { [weak cache] in cache?.set(value: true, forKey: .other) }))
        cache.remove(.token(Token(id: 1)))
    }

    /// Failed (deadlocked) before its fix: past ``CacheStoreChanges/pendingKeyLimit`` keys the waiting
    /// keys merged into "every key" with `pending = nil` inside the buffer's lock, which released the
    /// token there; its `deinit`'s write then asked for the same lock.
    @Test func keysMergedIntoEveryKeyAreReleasedOutsideTheStreamsLock() async {
        let cache = CacheStore<TokenKey>(initialValues: [:])
        var iterator = cache.changes.makeAsyncIterator()
        let finished = await expectFinishes("a write past the changes stream's key limit", within: 30) {
            Self.leaveTokenOnlyInTheStream(of: cache)
            for index in 0...CacheStoreChanges<TokenKey>.pendingKeyLimit {
                cache.set(value: index, forKey: .item(index))
            }
        }
        guard finished else { return }
        #expect(cache.get(.other, as: Bool.self) == true, "the token was not released")
        #expect(await iterator.next()?.isEveryKey == true)
    }

    /// The consumer takes the waiting keys: the token goes with them, and is released by the consumer.
    @Test func keysTakenByTheConsumerAreReleasedOutsideTheStreamsLock() async {
        let cache = CacheStore<TokenKey>(initialValues: [:])
        var iterator = cache.changes.makeAsyncIterator()
        Self.leaveTokenOnlyInTheStream(of: cache)
        let taken = AttackBox(await iterator.next())
        #expect(taken.value?.keys?.count == 1)
        #expect(cache.get(.other, as: Bool.self) == nil)
        let finished = await expectFinishes("releasing the keys taken from the changes stream", within: 30) {
            taken.value = nil
        }
        guard finished else { return }
        #expect(cache.get(.other, as: Bool.self) == true, "the token was not released")
        #expect(await iterator.next() == [.other])
    }
}
