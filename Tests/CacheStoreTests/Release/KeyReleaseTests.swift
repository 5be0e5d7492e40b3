import CacheStore
import Foundation
import Observation
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

    /// Past ``CacheStoreChanges/pendingKeyLimit`` keys, the waiting keys merge into "every key": the token
    /// among them is released with the stream's lock left, so its `deinit`'s write, which takes that
    /// lock, returns.
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

    // MARK: - A key instance kept by concurrent updates

    /// A key of class type whose `deinit` reads the cache (from another thread, so that the test
    /// cannot hang) when it is the probing instance.
    final class ProbingKey: Hashable, @unchecked Sendable {
        let name: String
        let cache: AttackBox<CacheStore<ProbingKey>?>?
        let blocked: AttackBox<Int>?
        init(_ name: String, probing cache: AttackBox<CacheStore<ProbingKey>?>? = nil, _ blocked: AttackBox<Int>? = nil)
        {
            (self.name, self.cache, self.blocked) = (name, cache, blocked)
        }
        deinit {
            guard let cache = cache?.value, let blocked else { return }
            if !returnsWithinTwoSeconds({ _ = cache.allValues }) { blocked.value += 1 }
        }
        static func == (lhs: ProbingKey, rhs: ProbingKey) -> Bool { lhs.name == rhs.name }
        func hash(into hasher: inout Hasher) { hasher.combine(name) }
    }

    /// Two threads update one key at once, with equal but distinct key instances: the first one's
    /// instance, kept as the key of `RootCore.updates`, must not be released inside the core's lock.
    @Test func aKeyIsNeverReleasedInsideTheCoresLockByConcurrentUpdates() async {
        let blocked = AttackBox(0)
        let box = AttackBox<CacheStore<ProbingKey>?>(nil)
        let cache = CacheStore<ProbingKey>(initialValues: [ProbingKey("k"): 0])
        box.value = cache
        let (firstInBody, secondInBody, firstDone) = (
            DispatchSemaphore(value: 0), DispatchSemaphore(value: 0), DispatchSemaphore(value: 0)
        )
        @Sendable func firstUpdate() {
            cache.update(ProbingKey("k", probing: box, blocked), as: Int.self) { value in
                firstInBody.signal()
                secondInBody.wait()
                value = 1
            }
        }
        await offThePool {
            onThreads(2) { thread in
                if thread == 0 {
                    firstUpdate()  // its key instance is released here, with the call
                    firstDone.signal()
                    return
                }
                firstInBody.wait()
                let isFirstRun = AttackBox(true)
                cache.update(ProbingKey("k"), as: Int.self) { value in
                    if isFirstRun.value {
                        isFirstRun.value = false
                        secondInBody.signal()
                        firstDone.wait()
                    }
                    value = 2
                }
            }
        }
        #expect(cache.get(ProbingKey("k"), as: Int.self) == 2)
        box.value = nil
        #expect(blocked.value == 0, "a key was released inside RootCore.lock")
    }

    // MARK: - Keys taken in and let go on every path at once

    static let sameTokenKeys: BiDirectionalTransformation<TokenKey?, TokenKey?> = (from: { $0 }, to: { $0 })

    /// Keys whose `deinit` writes to their cache, on every path that takes a key in and lets it go,
    /// at once on six threads: writes and removals (of more keys than a `changes` iterator that is
    /// not consumed keeps: they merge into "every key"); observed reads of present and absent keys
    /// (the empty slots they leave are purged); scopes' reads (a scope's subject keeps its key until
    /// the scope is released); `update`s of one key on two threads (the conflict watch keeps the
    /// first updater's key instance); and `changes` iterators cancelled at once or left to take the
    /// next change. A key released inside a lock that its `deinit`'s write takes deadlocks.
    @Test func keysWhoseDeinitWritesTheirCacheTakenInAndLetGoOnEveryPathAtOnce() async {
        let cache = CacheStore<TokenKey>(initialValues: [:])
        let token: @Sendable (Int) -> TokenKey = { id in
            .token(Token(id: id) { [weak cache] in cache?.set(value: true, forKey: .other) })
        }
        let taken = Recorder<Void>()
        // Never consumed while the keys change: past its limit, its keys merge into "every key".
        var unconsumed = cache.changes.makeAsyncIterator()
        let finished = await expectFinishes("keys whose deinit writes their cache, churned", within: 60) {
            onThreads(6) { thread in
                for round in 0..<300 {
                    let id = round % 11
                    switch thread {
                    case 0:
                        cache.set(value: round, forKey: token(id))
                        cache.remove(token(id + 5))
                        for fresh in 10_000 + round * 4..<10_000 + round * 4 + 4 {
                            cache.set(value: round, forKey: token(fresh))
                            cache.remove(token(fresh))
                        }
                    case 1:
                        withObservationTracking(
                            {
                                _ = cache.get(token(id), as: Int.self)
                                for absent in 0..<4 { _ = cache.contains(token(1_000 + round * 4 + absent)) }
                            }, onChange: {})
                    case 2:
                        let scope = cache.scope(keyTransformation: Self.sameTokenKeys)
                        withObservationTracking({ _ = scope.get(token(id), as: Int.self) }, onChange: {})
                    case 3, 4:
                        cache.update(token(id), as: Int.self) { value in value = (value ?? 0) + 1 }
                    default:
                        let iterator = cache.changes.makeAsyncIterator()
                        let task = Task {
                            var iterator = iterator
                            _ = await iterator.next()
                            taken.append(())
                        }
                        if round.isMultiple(of: 2) { task.cancel() }
                    }
                }
            }
        }
        guard finished else { return }
        cache.set(value: true, forKey: .other)  // the iterators left waiting take this change
        #expect(await eventually { taken.values.count == 300 }, "\(taken.values.count) of 300 iterators returned")
        #expect(cache.get(.other, as: Bool.self) == true)
        #expect(await unconsumed.next()?.isEveryKey == true)
    }
}
