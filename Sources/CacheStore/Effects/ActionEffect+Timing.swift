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
    /// The debounced effect waits under `id` until `duration` after the action that returned it
    /// (measured when the handler returns, on `clock`). A newer debounced effect with `id` replaces the
    /// one still waiting. Once the wait is over, this effect starts under `id`, and so cancels the
    /// effect still running under it (cancel in flight); its parts keep their own ids too.
    /// ``cancel(id:)`` with `id` cancels it, waiting or running.
    ///
    /// **Deadlines decide.** A wait is over when its clock reaches its deadline, even if the task
    /// sleeping until then has not woken yet (a busy machine): a newer debounced effect that comes
    /// after the deadline finds the older one due, starts it, and then waits itself. So a late timer
    /// never drops an effect whose delay had passed.
    ///
    /// Pass the clock through the dependency: `ContinuousClock()` in the app, a test clock in tests,
    /// so that a test of a 300 ms debounce takes no real time.
    ///
    /// - Parameters:
    ///   - id: The id the debounced effects share.
    ///   - duration: How long to wait after the last action.
    ///   - clock: The clock to wait on. Its `now` is read when the effect starts, never while the
    ///     store holds a lock.
    /// - Returns: The debounced effect.
    public func debounce<C: Clock>(id: AnyHashable, for duration: C.Duration, clock: C) -> ActionEffect {
        ActionEffect(id: id, operation: .debounced(ClockTiming(clock: clock, duration: duration), self))
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
    /// the last start waits until `duration` has passed since it: with `latest` `true`, a newer one
    /// replaces it while it waits (the last one of the interval runs); with `latest` `false`, newer
    /// ones are dropped while it waits (the first one runs). A waiting one leaves the one running
    /// under `id` alone; once its wait is over it starts under `id`, and so cancels the one still
    /// running under it (cancel in flight). ``cancel(id:)`` with `id` cancels both, the one waiting
    /// and the one running, and forgets the last start. Time is measured when the handler that
    /// returned the effect returns, on `clock`; each store keeps its own schedule per `id`.
    ///
    /// **Deadlines decide.** A waiting effect's start is due when its clock reaches it, even if the
    /// task sleeping until then has not woken yet: a newer throttled effect that comes after that
    /// instant finds the waiting one due, starts it, and is then throttled against it. So taps at 0,
    /// 0.5 and 1.05 s through a 1 s throttle run three times, however late the timer fires.
    ///
    /// - Parameters:
    ///   - id: The id the throttled effects share.
    ///   - duration: The shortest time between two starts.
    ///   - clock: The clock to measure time on. Its `now` is read when the effect starts, never while
    ///     the store holds a lock.
    ///   - latest: Whether an effect returned during the interval replaces the one waiting (`true`)
    ///     or is dropped (`false`).
    /// - Returns: The throttled effect.
    public func throttle<C: Clock>(id: AnyHashable, for duration: C.Duration, clock: C, latest: Bool) -> ActionEffect {
        ActionEffect(
            id: id, operation: .throttled(ClockTiming(clock: clock, duration: duration), latest: latest, self))
    }
}
