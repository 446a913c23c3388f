import FloorFetch

// floor-nio URL: fetches an http:// URL and prints its status.
guard CommandLine.arguments.count == 2 else {
    print("usage: floor-nio http://HOST:PORT/PATH")
    exitWithCode(2)
}
exitWithCode(await fetchAndPrint(CommandLine.arguments[1]))
