import "./style.css";
import { App } from "./app";
import { mountGame } from "./game";
import { mountHelp } from "./help";
import { mountLan } from "./lanView";
import { mountMenu } from "./menu";
import { mountOnline } from "./onlineView";
import { mountPracticeSetup } from "./practice";
import { mountSettings } from "./settingsView";
import { mountAchievements, mountLeaderboard, mountStatistics } from "./statsView";

const root = document.getElementById("app")!;
const app = new App(root);
app.register("menu", mountMenu);
app.register("game", mountGame);
app.register("settings", mountSettings);
app.register("help", mountHelp);
app.register("practice-setup", mountPracticeSetup);
app.register("online", mountOnline);
app.register("lan", mountLan);
app.register("statistics", mountStatistics);
app.register("achievements", mountAchievements);
app.register("leaderboard", mountLeaderboard);
app.start();
// The Same Wi-Fi app's page opened from another page's Same Wi-Fi tab (web/src/lanView.ts).
if (location.hash === "#same-wifi") app.show("lan");
(window as unknown as { boxedin: App }).boxedin = app;
