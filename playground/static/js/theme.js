// theme.js: light and dark themes. "auto" follows the system; the button
// cycles auto → light → dark. The choice lasts as long as the page.

const themes = ["auto", "light", "dark"];

/** setupTheme makes the button switch the page's theme. */
export function setupTheme(button) {
  let index = 0;
  button.addEventListener("click", () => {
    index = (index + 1) % themes.length;
    const theme = themes[index];
    if (theme === "auto") delete document.documentElement.dataset.theme;
    else document.documentElement.dataset.theme = theme;
    button.textContent = "Theme: " + theme;
  });
}
