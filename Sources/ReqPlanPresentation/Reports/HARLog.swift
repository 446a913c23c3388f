import Foundation
import ReqPlanRuntime
import ReqPlanSyntax

/// The HAR 1.2 report (`--report har:PATH`): every exchange of a run, a page per plan file, as browsers
/// and proxies export recorded traffic (http://www.softwareishard.com/blog/har-12-spec/).
///
/// Entries are written in the order they started, each naming its page, its plan step (`_step`, and
/// `_item` for a for_each item) and its attempt (`_attempt`). Secrets are hidden as in every other output:
/// the request as outputs show it (`***` where a secret went in), the values of credential and cookie
/// headers and of the plan's `redact_headers` as `***` by name, cookie values as `***`, and whatever a
/// server sent (headers, bodies, redirect targets) through the textual net (`Redactor`) with every secret
/// the run knew at its end. docs/reports.md describes every field.
public struct HARLog: Sendable {
    /// The exchanges of one plan file.
    public struct Page: Sendable {
        /// The page's title: the plan file.
        public var title: String
        /// When the plan's run started.
        public var startedAt: Date
        /// Its exchanges.
        public var exchanges: [RecordedExchange]
        /// The textual net for the plan's run.
        public var redactor: Redactor
        /// Header names (lower case) whose values are always `***`.
        public var hiddenHeaders: Set<String>

        /// Creates a page.
        public init(
            title: String, startedAt: Date, exchanges: [RecordedExchange], redactor: Redactor,
            hiddenHeaders: Set<String>
        ) {
            self.title = title
            self.startedAt = startedAt
            self.exchanges = exchanges
            self.redactor = redactor
            self.hiddenHeaders = hiddenHeaders
        }
    }

    /// The version of reqplan, for `creator`.
    public static let creatorVersion = ReqPlanVersion.current

    /// The pages, in suite order.
    public var pages: [Page]

    /// A HAR log of `pages`.
    public init(pages: [Page]) {
        self.pages = pages
    }

    /// The HAR document as JSON text.
    public func jsonText() -> String {
        jsonValue.jsonText(pretty: true) + "\n"
    }

    /// The HAR document.
    var jsonValue: Value {
        var entries: [(started: Date, value: Value)] = []
        for (index, page) in pages.enumerated() {
            let id = "page_\(index + 1)"
            for exchange in page.exchanges {
                entries.append((exchange.started, exchange.harEntry(pageID: id, of: page)))
            }
        }
        // In the order they started; the sort is stable, so a redirect's hops stay in order.
        let ordered = entries.enumerated().sorted { ($0.element.started, $0.offset) < ($1.element.started, $1.offset) }
        return .object([
            .init(
                "log",
                .object([
                    .init("version", .string("1.2")),
                    .init(
                        "creator",
                        .object([.init("name", .string("reqplan")), .init("version", .string(Self.creatorVersion))])),
                    .init(
                        "pages",
                        .list(
                            pages.enumerated().map { index, page in
                                .object([
                                    .init("startedDateTime", .string(RunReport.timeText(page.startedAt))),
                                    .init("id", .string("page_\(index + 1)")),
                                    .init("title", .string(page.title)),
                                    .init("pageTimings", .object([])),
                                ])
                            })),
                    .init("entries", .list(ordered.map(\.element.value))),
                ]))
        ])
    }
}
