import { render } from "solid-js/web";
import { App } from "./app.js";
import "./styles/tokens.css";
import "./styles/base.css";
import "./styles/layout.css";
import "./styles/chat.css";
import "./styles/conversation.css";
import "./styles/panels.css";
import "./styles/screens.css";
import "./styles/usage.css";

const root = document.getElementById("root");
if (root) render(() => <App />, root);
