import FloorFetch
import FloorPlan

// floor-nio-yams PLAN: reads the plan's step `one` with Yams and fetches its URL.
guard CommandLine.arguments.count == 2, let url = planURL(CommandLine.arguments[1]) else {
    print("usage: floor-nio-yams PLAN (a plan with a step `one`)")
    exitWithCode(2)
}
exitWithCode(await fetchAndPrint(url))
