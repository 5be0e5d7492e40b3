/// A posts action is written as Swift would write it if `Result` were `Codable`: one key naming the
/// case (`{"nextPage":{}}`, `{"scroll":{"to":3}}`), a fetch's result as `{"loaded":{"_0":{"success":…}}}`.
///
/// `Result` has no `Codable` conformance of its own, and declaring one for a type and a protocol
/// that both belong to the standard library could clash with a later one, so the action is coded
/// through `CodedPostsAction`, which has the same cases and a `Codable` result.
extension PostsAction: Codable {
    public init(from decoder: any Decoder) throws {
        self = try CodedPostsAction(from: decoder).action
    }

    public func encode(to encoder: any Encoder) throws {
        try CodedPostsAction(self).encode(to: encoder)
    }
}

/// ``PostsAction``, case for case, with a fetch's result as a `CodedFetchResult`: its coding is
/// the compiler's.
private enum CodedPostsAction: Codable {
    case load
    case cancel
    case loaded(CodedFetchResult)
    case nextPage
    case previousPage
    case firstPage
    case setPageSize(Int)
    case selectNext
    case selectPrevious
    case selectFirst
    case selectLast
    case open
    case showHelp
    case back
    case scroll(to: Int)

    init(_ action: PostsAction) {
        switch action {
        case .load: self = .load
        case .cancel: self = .cancel
        case .loaded(.success(let posts)): self = .loaded(.success(posts))
        case .loaded(.failure(let error)): self = .loaded(.failure(error))
        case .nextPage: self = .nextPage
        case .previousPage: self = .previousPage
        case .firstPage: self = .firstPage
        case .setPageSize(let size): self = .setPageSize(size)
        case .selectNext: self = .selectNext
        case .selectPrevious: self = .selectPrevious
        case .selectFirst: self = .selectFirst
        case .selectLast: self = .selectLast
        case .open: self = .open
        case .showHelp: self = .showHelp
        case .back: self = .back
        case .scroll(let line): self = .scroll(to: line)
        }
    }

    var action: PostsAction {
        switch self {
        case .load: .load
        case .cancel: .cancel
        case .loaded(.success(let posts)): .loaded(.success(posts))
        case .loaded(.failure(let error)): .loaded(.failure(error))
        case .nextPage: .nextPage
        case .previousPage: .previousPage
        case .firstPage: .firstPage
        case .setPageSize(let size): .setPageSize(size)
        case .selectNext: .selectNext
        case .selectPrevious: .selectPrevious
        case .selectFirst: .selectFirst
        case .selectLast: .selectLast
        case .open: .open
        case .showHelp: .showHelp
        case .back: .back
        case .scroll(let line): .scroll(to: line)
        }
    }
}

/// `Result<[Post], PostsError>`, coded as the compiler codes an enum.
private enum CodedFetchResult: Codable {
    case success([Post])
    case failure(PostsError)
}
