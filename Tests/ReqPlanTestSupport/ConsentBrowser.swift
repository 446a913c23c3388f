import Foundation

/// A user at a browser, for the `authorization_code` grant: a Python Selenium driver of headless Chromium
/// (`/usr/bin/chromedriver`) that opens the address it is given (as `$BROWSER` is), signs in to
/// django-oauth-toolkit's login page as `DjangoOAuthProvider.user`, and clicks Authorize (`allow`) or Cancel
/// (`deny`) on its consent page. It writes what it saw to its log: `signed in`, `consent`, the text of the page
/// the run's listener answered with (`page: reqplan: …`), and the redirect's `state` and `code` (`state=…`,
/// `code=…`), for a test to check the run shows neither, and last `ended`, once the browser has quit.
///
/// The run the browser serves may end before the driver has read the page the run answered with: a test waits
/// for `ended` (`waitUntilEnded`) before it reads what the driver saw.
public struct ConsentBrowser: Sendable {
    public enum Choice: String, Sendable { case allow, deny }

    /// The driver script.
    public let script: URL
    /// Where it writes what it saw.
    public let log: URL

    public init(_ choice: Choice) throws {
        let folder = try ExternalServers.makeTemporaryFolder("consent-browser")
        script = folder.appendingPathComponent("consent.py")
        log = folder.appendingPathComponent("consent.log")
        try Self.driver.write(to: script, atomically: true, encoding: .utf8)
        self.choice = choice
    }

    private let choice: Choice

    /// The value of `BROWSER` that runs it: `python3 SCRIPT CHOICE LOG`, the address added last.
    public var browserCommand: String { "python3 \(script.path) \(choice.rawValue) \(log.path)" }

    /// Runs it on `url` and waits for it to end (at most `limit`): whether it ended well.
    public func open(_ url: String, within limit: Duration = .seconds(120)) async throws -> Bool {
        guard let python = ExternalServers.executable("python3") else { return false }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = [script.path, choice.rawValue, log.path, url]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        let ended = AsyncStream<Int32>.makeStream()
        process.terminationHandler = {
            ended.continuation.yield($0.terminationStatus)
            ended.continuation.finish()
        }
        try process.run()
        let pid = process.processIdentifier
        return await withTaskGroup(of: Bool?.self) { group in
            group.addTask {
                for await status in ended.stream { return status == 0 }
                return false
            }
            group.addTask {
                try? await Task.sleep(for: limit)
                return nil
            }
            let first = await group.next()
            group.cancelAll()
            if case .some(.some(let ended)) = first { return ended }
            kill(pid, SIGKILL)
            return false
        }
    }

    /// Waits until the driver has logged `ended` (at most `limit`): whether it did.
    public func waitUntilEnded(within limit: Duration = .seconds(120)) async -> Bool {
        let deadline = ContinuousClock.now + limit
        while ContinuousClock.now < deadline {
            if lines.contains("ended") { return true }
            try? await Task.sleep(for: .milliseconds(100))
        }
        return false
    }

    /// What the driver logged so far.
    public var seen: String { (try? String(contentsOf: log, encoding: .utf8)) ?? "" }

    /// `seen`, a line each.
    private var lines: [Substring] { seen.split(separator: "\n") }

    /// The value of `name=` the driver logged (`state`, `code`), if any.
    public func logged(_ name: String) -> String? {
        lines.first { $0.hasPrefix(name + "=") }.map { String($0.dropFirst(name.count + 1)) }
    }

    private static let driver = #"""
        import sys, traceback
        from urllib.parse import urlsplit, parse_qs
        from selenium import webdriver
        from selenium.webdriver.chrome.options import Options
        from selenium.webdriver.chrome.service import Service
        from selenium.webdriver.common.by import By
        from selenium.webdriver.support.ui import WebDriverWait

        choice, log_path, url = sys.argv[1], sys.argv[2], sys.argv[-1]
        log = open(log_path, "a", buffering=1)
        options = Options()
        for argument in ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"]:
            options.add_argument(argument)
        driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
        try:
            driver.get(url)
            wait = WebDriverWait(driver, 60)
            wait.until(lambda d: d.find_elements(By.NAME, "username"))
            driver.find_element(By.NAME, "username").send_keys("alice")
            driver.find_element(By.NAME, "password").send_keys("alice-password-71d0")
            driver.find_element(By.ID, "sign-in").click()
            log.write("signed in\n")
            wait.until(lambda d: d.find_elements(By.ID, "authorizationForm"))
            log.write("consent\n")
            if choice == "allow":
                driver.find_element(By.NAME, "allow").click()
            else:
                driver.find_element(By.CSS_SELECTOR, "input[type=submit][value=Cancel]").click()
            wait.until(lambda d: urlsplit(d.current_url).path == "/callback")
            wait.until(lambda d: "reqplan:" in d.find_element(By.TAG_NAME, "body").text)
            query = parse_qs(urlsplit(driver.current_url).query)
            for name in ["state", "code", "error"]:
                for value in query.get(name, []):
                    log.write("%s=%s\n" % (name, value))
            log.write("page: " + driver.find_element(By.TAG_NAME, "body").text.replace("\n", " ") + "\n")
        except Exception:
            log.write("failed: " + traceback.format_exc().replace("\n", " | ") + "\n")
            sys.exit(1)
        finally:
            driver.quit()
            log.write("ended\n")
        """#
}
