extension ActionEffect {
    /// This effect, started only once `duration` has passed on `clock` without another effect with
    /// the same `id`: a search that runs when the user stops typing.
    ///
    /// ```swift
    /// case .queryChanged(let query):
    ///     state.set(value: query, forKey: .query)
    ///     return ActionEffect { .results(await dependency.search(query)) }
    ///         .debounce(id: CancelID.search, for: .milliseconds(300), clock: dependency.clock)
    /// ```
    ///
    /// The debounced effect runs under `id` and waits until `duration` after the action that returned
    /// it (measured from the handler, on `clock`); each new debounced effect with `id` cancels the one
    /// waiting, or running, under it. ``cancel(id:)`` with `id` cancels it, waiting or running.
    /// Once the wait is over, this effect's parts start under their own ids too.
    ///
    /// Pass the clock through the dependency: `ContinuousClock()` in the app, a test clock in tests,
    /// so that a test of a 300 ms debounce takes no real time.
    ///
    /// - Parameters:
    ///   - id: The id the debounced effects share.
    ///   - duration: How long to wait after the last action.
    ///   - clock: The clock to wait on.
    /// - Returns: The debounced effect.
    public func debounce<C: Clock>(id: AnyHashable, for duration: C.Duration, clock: C) -> ActionEffect {
        // The deadline is read when the effect starts, so a debounced effect made once and returned
        // later is timed from the handler that returned it. (The effect moves into the task that
        // starts it, as every effect does; ids are immutable values by contract.)
        let effect = UncheckedSendable((id, self))
        return ActionEffect(
            id: id,
            operation: .decidedAtStart { _ in
                let (id, effect) = effect.value
                return .concatenate(id: id, [.delay(until: clock.now.advanced(by: duration), on: clock), effect])
            })
    }

    /// This effect, started at most once per `duration` on `clock` among effects with the same `id`:
    /// a refresh button that fetches at most once a second however often it is tapped.
    ///
    /// ```swift
    /// case .refreshTapped:
    ///     return ActionEffect { .postsResponse(await dependency.fetchPosts()) }
    ///         .throttle(id: CancelID.refresh, for: .seconds(1), clock: dependency.clock, latest: true)
    /// ```
    ///
    /// The first throttled effect with `id` starts at once. One returned less than `duration` after
    /// the last start waits until `duration` has passed: with `latest` `true`, a newer one replaces it
    /// while it waits (the last one of the interval runs); with `latest` `false`, newer ones are
    /// dropped while it waits (the first one runs). A waiting one leaves the one running under `id`
    /// alone; once its wait is over it starts under `id`, and so cancels the one still running under
    /// it (cancel in flight). ``cancel(id:)`` with `id` cancels both, the one waiting and the one
    /// running. Time is measured from the handler that returned the
    /// effect, on `clock`; each store keeps its own schedule per `id`.
    ///
    /// - Parameters:
    ///   - id: The id the throttled effects share.
    ///   - duration: The shortest time between two starts.
    ///   - clock: The clock to measure time on.
    ///   - latest: Whether an effect returned during the interval replaces the one waiting (`true`)
    ///     or is dropped (`false`).
    /// - Returns: The throttled effect.
    public func throttle<C: Clock>(id: AnyHashable, for duration: C.Duration, clock: C, latest: Bool) -> ActionEffect {
        // An effect moves into the task that starts it, as every effect does; ids are immutable
        // values by contract (`AnyHashable` is not marked `Sendable`).
        let effect = UncheckedSendable((id, self))
        return ActionEffect(
            id: id,
            operation: .decidedAtStart { schedule in
                let (id, effect) = effect.value
                let now = clock.now  // when the effect starts: right after the handler that returned it
                switch schedule.start(id, at: now, interval: duration, latest: latest) {
                case .now:
                    return .concatenate(id: id, [effect])
                case .at(let deadline):
                    return ActionEffect(id: id, operation: .deferred(EffectWait(until: deadline, on: clock), effect))
                case .never:
                    return nil
                }
            })
    }

    /// An effect that waits until `deadline` on `clock` and produces no action.
    static func delay<C: Clock>(until deadline: C.Instant, on clock: C) -> ActionEffect {
        ActionEffect(id: nil, operation: .delay(EffectWait(until: deadline, on: clock)))
    }
}
