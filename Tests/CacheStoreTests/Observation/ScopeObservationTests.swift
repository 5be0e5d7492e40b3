import CacheStore
import Observation
import Testing

/// A read through a scope is recorded on the scope's own subject of the key, linked to the key where
/// it is stored, and unlinked when the scope is released: its observers fire as before, and go with it.
@Suite(.timeLimit(.minutes(2))) struct ScopeObservationTests {
    @Test func aScopesObserverFiresOnEveryChangeOfItsKeyNotOnOthers() {
        let parent = CacheStore<Key>(initialValues: [.count: 0, .name: "x"])
        let scope = parent.scope(keyTransformation: featureKeys)
        let fired = fireCount { _ = scope.get(.counter, as: Int.self) }
        parent.set(value: "y", forKey: .name)
        #expect(fired.values.isEmpty)
        parent.set(value: 1, forKey: .count)
        #expect(fired.values.count == 1)
        let again = fireCount { _ = scope.get(.counter, as: Int.self) }
        scope.set(value: 2, forKey: .counter)
        #expect(again.values.count == 1)
    }

    /// One scope reading two keys, in turn and again: the first key's subject is offered for the
    /// second key's read and refused there, so each key keeps its own subject, and each observer is
    /// told of its own key's writes only, round after round.
    @Test func aScopeReadingTwoKeysTellsEachKeysObserversOfThatKeyOnly() {
        let parent = CacheStore<Key>(initialValues: [.count: 0, .name: "x"])
        let scope = parent.scope(keyTransformation: featureKeys)
        for round in 1...3 {
            let counterFired = fireCount { _ = scope.get(.counter, as: Int.self) }
            let labelFired = fireCount { _ = scope.get(.label, as: String.self) }
            let bothFired = fireCount {
                _ = scope.get(.label, as: String.self)
                _ = scope.get(.counter, as: Int.self)
            }
            parent.set(value: "y\(round)", forKey: .name)
            #expect(counterFired.values.isEmpty)
            #expect(labelFired.values.count == 1)
            #expect(bothFired.values.count == 1)
            parent.set(value: round, forKey: .count)
            #expect(counterFired.values.count == 1)
            #expect(labelFired.values.count == 1)
        }
    }

    @Test func aScopesObserverOfARemovedKeyFiresWhenItComesBack() {
        let parent = CacheStore<Key>(initialValues: [.count: 0])
        let scope = parent.scope(keyTransformation: featureKeys)
        let removal = fireCount { _ = scope.get(.counter, as: Int.self) }
        parent.remove(.count)
        #expect(removal.values.count == 1)
        let comeback = fireCount { _ = scope.contains(.counter) }
        parent.set(value: 3, forKey: .count)
        #expect(comeback.values.count == 1)
        #expect(scope.get(.counter, as: Int.self) == 3)
    }

    @Test func aScopeOfAScopeIsToldOfItsKeyInTheRootAndInTheMiddleScope() {
        let parent = CacheStore<Key>(initialValues: [.count: 0])
        let middle = parent.scope(keyTransformation: featureKeys, defaultCache: [.localOnly: "seed"])
        let inner = middle.scope(keys: [.counter, .localOnly])
        let counterFired = fireCount { _ = inner.get(.counter, as: Int.self) }
        let localFired = fireCount { _ = inner.get(.localOnly, as: String.self) }
        parent.set(value: 1, forKey: .count)
        #expect(counterFired.values.count == 1)
        #expect(localFired.values.isEmpty)
        middle.set(value: "changed", forKey: .localOnly)
        #expect(localFired.values.count == 1)
    }

    /// Many scopes of one shared key, released first, last and from the middle of the key's list of
    /// subjects: each release leaves every other scope linked and told, and only those.
    @Test func scopesOfOneKeyReleasedInAnyOrderLeaveTheOthersLinked() {
        let parent = CacheStore<Key>(initialValues: [.count: 0])
        var scopes = (0..<8).map { _ in parent.scope(keyTransformation: featureKeys) }
        var live = Array(scopes.indices)
        for released in [7, 0, 4, 2, 5, 1, 6, 3] {
            let fired = live.map { index in
                let scope = scopes[index]
                return fireCount { _ = scope.get(.counter, as: Int.self) }
            }
            let position = live.firstIndex(of: released)!
            scopes[released] = parent.scope(keyTransformation: featureKeys)  // the old one is released
            live.remove(at: position)
            var stillFired = fired
            stillFired.remove(at: position)
            parent.set(value: released + 1, forKey: .count)
            #expect(stillFired.allSatisfy { $0.values.count == 1 }, "released \(released)")
            #expect(fired[position].values.isEmpty, "the released scope \(released) was told")
        }
    }

    /// A key's own subject and its scopes' subjects are one list, the own one first, whichever read
    /// came first: every observer is told of a write and of a removal, a released scope's only not,
    /// and the removed key's slot stays for the scope still linked to it.
    @Test(arguments: [true, false])
    func aKeyReadDirectlyAndThroughScopesTellsEveryObserver(directReadFirst: Bool) {
        let parent = CacheStore<Key>(initialValues: [.count: 0])
        let kept = parent.scope(keyTransformation: featureKeys)
        var released: CacheStore<FeatureKey>? = parent.scope(keyTransformation: featureKeys)
        let readDirectly = { fireCount { _ = parent.get(.count, as: Int.self) } }
        var direct = directReadFirst ? readDirectly() : nil
        let keptFired = fireCount { _ = kept.get(.counter, as: Int.self) }
        let releasedFired = fireCount { [released] in _ = released?.get(.counter, as: Int.self) }
        if direct == nil { direct = readDirectly() }
        released = nil
        parent.set(value: 1, forKey: .count)
        #expect(direct?.values.count == 1)
        #expect(keptFired.values.count == 1)
        #expect(releasedFired.values.isEmpty)

        let directAgain = readDirectly()
        let keptAgain = fireCount { _ = kept.get(.counter, as: Int.self) }
        parent.remove(.count)
        #expect(directAgain.values.count == 1)
        #expect(keptAgain.values.count == 1)
        let comeback = fireCount { _ = kept.contains(.counter) }
        parent.set(value: 2, forKey: .count)
        #expect(comeback.values.count == 1)
        #expect(kept.get(.counter, as: Int.self) == 2)
    }

    @Test func aReleasedScopesObserverIsNotToldAndOtherScopesStillAre() {
        let parent = CacheStore<Key>(initialValues: [.count: 0])
        let kept = parent.scope(keyTransformation: featureKeys)
        let keptFired = fireCount { _ = kept.get(.counter, as: Int.self) }
        let releasedFired = Recorder<Void>()
        do {
            let released = parent.scope(keyTransformation: featureKeys)
            withObservationTracking(
                { _ = released.get(.counter, as: Int.self) }, onChange: { releasedFired.append(()) })
        }
        parent.set(value: 1, forKey: .count)
        #expect(keptFired.values.count == 1)
        #expect(releasedFired.values.isEmpty)
    }

    /// Empty slots are purged once they outnumber the keys present; one a scope's subject is linked to
    /// stays, so the scope is still told when the key appears.
    @Test func aScopesObserverOfAnAbsentKeyOutlivesAPurgeOfEmptySlots() {
        let parent = CacheStore<Key>(initialValues: [:])
        let scope = parent.scope(keyTransformation: featureKeys)
        let fired = fireCount { _ = scope.contains(.counter) }
        for index in 0..<3_000 { _ = parent.contains(.item(index)) }
        parent.set(value: 1, forKey: .count)
        #expect(fired.values.count == 1)
    }

    /// Threads reading one scope's key for the first time at once each link a subject: every one
    /// stays linked, so each thread's observer is told.
    @Test func observersOfOneScopeRegisteredOnManyThreadsAtOnceAreAllTold() async {
        let parent = CacheStore<Key>(initialValues: [.count: 0])
        let scope = parent.scope(keyTransformation: featureKeys)
        let fired = Recorder<Void>()
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    withObservationTracking({ _ = scope.get(.counter, as: Int.self) }, onChange: { fired.append(()) })
                }
            }
        }
        parent.set(value: 1, forKey: .count)
        #expect(fired.values.count == 8)
    }

    /// Threads reading two keys of one scope for the first time at once: one subject becomes the
    /// scope's first, with no lock taken, and the others are kept by key (the first's word then says
    /// so, and reads look them up under the lock). Whichever thread wins, each observer is told of its
    /// own key's write only; round after round, with fresh scopes, so that the races vary.
    @Test func observersOfTwoKeysOfOneScopeRegisteredOnManyThreadsAtOnceAreToldOfTheirKeyOnly() async {
        let parent = CacheStore<Key>(initialValues: [.count: 0, .name: "x"])
        for round in 1...20 {
            let scope = parent.scope(keyTransformation: featureKeys)
            let counterFired = Recorder<Void>()
            let labelFired = Recorder<Void>()
            await withTaskGroup(of: Void.self) { group in
                for thread in 0..<8 {
                    group.addTask {
                        if thread.isMultiple(of: 2) {
                            withObservationTracking(
                                { _ = scope.get(.counter, as: Int.self) }, onChange: { counterFired.append(()) })
                        } else {
                            withObservationTracking(
                                { _ = scope.get(.label, as: String.self) }, onChange: { labelFired.append(()) })
                        }
                    }
                }
            }
            parent.set(value: "y\(round)", forKey: .name)
            #expect(counterFired.values.isEmpty)
            #expect(labelFired.values.count == 4)
            parent.set(value: round, forKey: .count)
            #expect(counterFired.values.count == 4)
            #expect(labelFired.values.count == 4)
        }
    }

    /// Scopes made, observed and released on several threads while another writes their key: each
    /// links and unlinks its subject under the parent's lock; afterwards the key's observers work.
    @Test func scopesMadeObservedAndReleasedOnManyThreadsWhileTheKeyChanges() async {
        let parent = CacheStore<Key>(initialValues: [.count: 0])
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<4 {
                group.addTask {
                    for _ in 0..<300 {
                        let row = parent.scope(keyTransformation: featureKeys)
                        withObservationTracking({ _ = row.get(.counter, as: Int.self) }, onChange: {})
                    }
                }
            }
            group.addTask { for value in 1...1_000 { parent.set(value: value, forKey: .count) } }
        }
        let kept = parent.scope(keyTransformation: featureKeys)
        let fired = fireCount { _ = kept.get(.counter, as: Int.self) }
        parent.remove(.count)
        #expect(fired.values.count == 1)
        #expect(kept.get(.counter, as: Int.self) == nil)
    }

    @Test func aStoresScopedRowIsToldOfTheActionThatWritesItsKey() {
        let store = Store(initialValues: [.count: 0], actionHandler: counterHandler)
        let row = store.actionlessScope(keyTransformation: featureKeys)
        let fired = fireCount { _ = row.get(.counter, as: Int.self) }
        store.handle(action: .increment)
        #expect(fired.values.count == 1)
        #expect(row.get(.counter, as: Int.self) == 1)
    }
}
