// Accessible names for parts of Material's page that have none (axe-core: "label", "aria-dialog-name"):
// the hidden toggles of the navigation drawer and of search, and the search dialog.
for (const [selector, name] of [["#__drawer", "导航"], ["#__search", "搜索"], [".md-search[role=dialog]", "搜索"]]) {
  for (const element of document.querySelectorAll(selector)) element.setAttribute("aria-label", name);
}
