import Testing

/// The suites that start processes (HTTP servers, the demo binary, tmux) run one test at a time: a
/// process started while another test's pipes are open could inherit them and keep them open.
@Suite(.serialized) enum ExternalProcessTests {}
