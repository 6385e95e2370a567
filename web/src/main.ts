import "./style.css";
import { App } from "./app";
import { mountGame } from "./game";
import { mountHelp } from "./help";
import { mountMenu } from "./menu";
import { mountPracticeSetup } from "./practice";
import { mountSettings } from "./settingsView";

const root = document.getElementById("app")!;
const app = new App(root);
app.register("menu", mountMenu);
app.register("game", mountGame);
app.register("settings", mountSettings);
app.register("help", mountHelp);
app.register("practice-setup", mountPracticeSetup);
app.start();
(window as unknown as { boxedin: App }).boxedin = app;
