import CacheStore
import Foundation
import Testing

/// A key can be a user value too: an enum with a class payload, equal by an id. When the cache drops
/// its copy of such a key (the key removed, with an equal but distinct key), the payload's `deinit`
/// runs: it must run with no lock held, as a value's does ("No lock is held while user code runs or
/// a user value is released").
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
}
