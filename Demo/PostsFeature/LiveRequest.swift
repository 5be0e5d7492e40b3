import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// One GET over URLSession, bounded as a whole by a deadline, that knows whether the server had
/// answered (sent its status line and headers) when it failed.
///
/// URLSession's own timeouts bound only the wait between two pieces of the answer: a body that
/// trickles in a byte a second is never timed out. The deadline here is for the whole request.
final class LiveRequest: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    /// How a request ended.
    enum Outcome {
        case answered(Data, URLResponse)
        case failed(any Error, answered: Bool)
        case timedOut(answered: Bool)
    }

    private let lock = NSLock()
    /// Guarded by `lock`, like the others: the answer so far, and who waits for the outcome.
    private var data = Data()
    private var response: URLResponse?
    private var waiting: CheckedContinuation<Outcome, Never>?

    private override init() {}

    /// Fetches `url`, giving up after `timeout` seconds in all, or when the calling task is cancelled.
    static func get(_ url: URL, timeout: TimeInterval) async -> Outcome {
        let request = LiveRequest()
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = timeout
        configuration.timeoutIntervalForResource = timeout
        let session = URLSession(configuration: configuration, delegate: request, delegateQueue: nil)
        let task = session.dataTask(with: url)
        let deadline = DispatchWorkItem {
            request.finish { .timedOut(answered: $0 != nil) }
            task.cancel()
        }
        let outcome = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                request.lock.withLock { request.waiting = continuation }
                task.resume()
                DispatchQueue.global().asyncAfter(deadline: .now() + timeout, execute: deadline)
            }
        } onCancel: {
            task.cancel()
        }
        deadline.cancel()
        session.finishTasksAndInvalidate()  // a session keeps its delegate until invalidated
        return outcome
    }

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping (URLSession.ResponseDisposition) -> Void
    ) {
        lock.withLock { self.response = response }
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        lock.withLock { self.data.append(data) }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        finish { response in
            if (error as? URLError)?.code == .timedOut { return .timedOut(answered: response != nil) }
            if let response, let error {
                // curl reports a body cut short by a closed connection as an unknown error
                let isCut = response.expectedContentLength > self.data.count
                return .failed(isCut ? URLError(.networkConnectionLost) : error, answered: true)
            }
            if let error { return .failed(error, answered: false) }
            guard let response else { return .failed(URLError(.badServerResponse), answered: false) }
            return .answered(self.data, response)
        }
    }

    /// Resumes the waiting caller once, with the outcome made from the response (if any) so far.
    private func finish(_ outcome: (URLResponse?) -> Outcome) {
        let resumed: (CheckedContinuation<Outcome, Never>, Outcome)? = lock.withLock {
            guard let waiting else { return nil }
            self.waiting = nil
            return (waiting, outcome(response))
        }
        resumed.map { $0.resume(returning: $1) }
    }
}
