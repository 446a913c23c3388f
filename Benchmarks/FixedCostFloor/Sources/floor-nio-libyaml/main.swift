import FloorFetch
import FloorPlan

// floor-nio-libyaml PLAN: reads the plan's URL from libyaml's events and fetches it (Yams linked, its resolver
// unused, as in reqplan).
guard CommandLine.arguments.count == 2, let url = planURLFromEvents(CommandLine.arguments[1]) else {
    print("usage: floor-nio-libyaml PLAN (a plan with a `url`)")
    exitWithCode(2)
}
exitWithCode(await fetchAndPrint(url))
