// Runs once Material has put the page together (document$ is Material's page-load signal).
document$.subscribe(() => {
  // Accessible names for parts of Material's page that have none (axe-core: "label", "aria-dialog-name"):
  // the hidden toggles of the navigation drawer and of search, and the search dialog.
  // Material's unnamed navigation landmarks get names of their own (axe-core: "landmark-unique").
  for (const [selector, name] of [["#__drawer", "导航"], ["#__search", "搜索"], [".md-search[role=dialog]", "搜索"],
                                  ["nav.md-tags", "标签"]]) {
    for (const element of document.querySelectorAll(selector)) element.setAttribute("aria-label", name);
  }
  // Material's skip link goes to the first heading of the table of contents, past a title the post header
  // writes: it goes to that title.
  const title = document.getElementById("series-title");
  if (title) document.querySelector(".md-skip")?.setAttribute("href", "#series-title");
  // A table wider than the page scrolls inside Material's wrapper: the wrapper takes keyboard focus, so the
  // hidden part can be reached without a mouse (axe-core: "scrollable-region-focusable").
  for (const wrapper of document.querySelectorAll(".md-typeset__scrollwrap")) {
    if (wrapper.scrollWidth > wrapper.clientWidth) {
      wrapper.setAttribute("tabindex", "0");
      wrapper.setAttribute("role", "region");
      wrapper.setAttribute("aria-label", "可横向滚动的表格");
    }
  }
});

// On a script's page or a source page, an address ending in #L15-L17 (where a card links) marks those lines
// and scrolls to the first. (A source page's lines have the ids L<n>, and each quoted range an element with the
// id L<a>-L<b>, so the address scrolls there without script too.)
function markLines() {
  const line = document.querySelector(".series-src") ? n => `L${n}` : n => `__span-0-${n}`;
  if (!document.querySelector(".series-script, .series-src")) return;
  for (const marked of document.querySelectorAll(".series-script__line")) marked.classList.remove("series-script__line");
  const lines = location.hash.match(/^#L(\d+)(?:-L(\d+))?$/);
  if (!lines) return;
  const count = document.querySelectorAll(".series-src__line, [id^='__span-0-']").length;  // no more lines than it has
  const [first, last] = [Number(lines[1]), Math.min(Number(lines[2] || lines[1]), count)];
  for (let n = first; n <= last; n++) document.getElementById(line(n))?.classList.add("series-script__line");
  document.getElementById(line(first))?.scrollIntoView({block: "center"});
}
document$.subscribe(markLines);
window.addEventListener("hashchange", markLines);

// Search results: the index separates Chinese words with zero-width spaces (Material's jieba segmentation),
// which would be copied with a teaser; and a result with no term to highlight links with an empty ?h=.
// Material ranks a page by how often it holds the query's words (for Chinese, the words jieba and its own
// segmenter make of it), not by the phrase: the pages that hold the query as typed come first.
const results = document.querySelector(".md-search-result__list");
let pageTexts = null;  // page address -> its text, from the search index the worker loaded (cached)
async function loadPageTexts() {
  const index = await (await fetch(new URL("search/search_index.json", __md_scope))).json();
  const texts = new Map();
  for (const doc of index.docs) {
    const page = new URL(doc.location, __md_scope);
    page.hash = "";
    texts.set(page.href, (texts.get(page.href) || "") + normalized(doc.title + " " + doc.text));
  }
  return texts;
}
function normalized(text) {
  return text.replace(/<[^>]*>/g, "").replaceAll("\u200b", "").replace(/\s+/g, " ").toLowerCase();
}
async function phraseFirst() {
  const query = normalized(document.querySelector(".md-search__input")?.value || "").trim();
  if (query.length < 2) return;
  pageTexts ??= await loadPageTexts();
  const items = [...results.children];
  const holds = item => {
    const link = item.querySelector("a");
    if (!link) return false;
    const page = new URL(link.href);
    page.hash = page.search = "";
    return (pageTexts.get(page.href) || "").includes(query);
  };
  const ordered = [...items.filter(holds), ...items.filter(item => !holds(item))];
  if (ordered.some((item, n) => item !== items[n])) results.append(...ordered);  // moves them; no change, no move
  results.dataset.phraseFirst = query;  // the order is settled for this query
}
if (results) {
  new MutationObserver(() => {
    const walker = document.createTreeWalker(results, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      if (node.data.includes("\u200b")) node.data = node.data.replaceAll("\u200b", "");
    }
    for (const link of results.querySelectorAll('a[href*="?h="]')) {
      const url = new URL(link.href);
      if (url.searchParams.get("h") === "") { url.searchParams.delete("h"); link.href = url.href; }
    }
    phraseFirst();
  }).observe(results, {childList: true, subtree: true});
}

// Code wraps by default (series.css); a reader may switch wrapping off (the code then scrolls sideways), for
// every code block at once, and the choice is kept for the next page.
function setWrap(wrap) {
  document.documentElement.classList.toggle("series-nowrap", !wrap);
  for (const button of document.querySelectorAll(".series-wrap")) button.setAttribute("aria-pressed", String(wrap));
}
// Material adds a code block's buttons (nav.md-code__nav) when the block first scrolls into view
// (content.lazy): each one gets its name and the wrap switch as it comes.
function equipCodeNav(nav) {
  const block = nav.closest("div.highlight");
  if (!block || nav.querySelector(".series-wrap")) return;
  nav.setAttribute("aria-label", `代码块 ${[...document.querySelectorAll("div.highlight")].indexOf(block) + 1} 的操作`);
  const button = document.createElement("button");
  button.type = "button";
  button.className = "series-wrap";
  button.title = "折行";
  button.setAttribute("aria-label", "折行");
  button.setAttribute("aria-pressed", String(!document.documentElement.classList.contains("series-nowrap")));
  button.textContent = "↩";
  button.addEventListener("click", () => {
    const wrap = document.documentElement.classList.contains("series-nowrap");
    localStorage.setItem("series-wrap", wrap ? "on" : "off");
    setWrap(wrap);
  });
  nav.prepend(button);
}
setWrap(localStorage.getItem("series-wrap") !== "off");
document.querySelectorAll("nav.md-code__nav").forEach(equipCodeNav);
new MutationObserver(changes => {
  for (const change of changes) {
    for (const node of change.addedNodes) {
      if (node instanceof Element && node.matches("nav.md-code__nav")) equipCodeNav(node);
    }
  }
}).observe(document.body, {childList: true, subtree: true});
