import "./views/style.css";
import { App } from "./app";
import { readSameWifiHash } from "./state/sameWifi";
import { mountGame } from "./views/game";
import { mountHelp } from "./views/help";
import { mountLan } from "./views/lanView";
import { mountMenu } from "./views/menu";
import { mountOnline } from "./views/onlineView";
import { mountPracticeSetup } from "./views/practiceSetup";
import { mountSettings } from "./views/settingsView";
import { mountWatch } from "./views/watchView";
import { mountAchievements, mountLeaderboard, mountStatistics } from "./views/statsView";

const root = document.getElementById("app")!;
const app = new App(root);
app.register("menu", mountMenu);
app.register("game", mountGame);
app.register("settings", mountSettings);
app.register("help", mountHelp);
app.register("practice-setup", mountPracticeSetup);
app.register("online", mountOnline);
app.register("lan", mountLan);
app.register("watch", mountWatch);
app.register("statistics", mountStatistics);
app.register("achievements", mountAchievements);
app.register("leaderboard", mountLeaderboard);
// The Same Wi-Fi app's page opened from a game server's Same Wi-Fi tab (network/sameWifi.ts),
// with the name the player chose there: this origin cannot read that page's storage.
const asked = readSameWifiHash(location.hash);
if (asked.name) app.setOnlineName(asked.name);
if (asked.open) history.replaceState(null, "", location.pathname + location.search);
app.start(asked.open ? "lan" : "menu");
(window as unknown as { boxedin: App }).boxedin = app;
