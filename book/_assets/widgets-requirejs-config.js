// Point require.js at the widget front ends that the site serves itself, so no page ever asks a
// CDN for them (the book must work offline). Loaded after require.js and before embed-amd.js.
// Paths are computed from this script's own URL, so the site works from any folder or file://.
(function () {
  var here = document.currentScript ? document.currentScript.src : "";
  var base = here.substring(0, here.lastIndexOf("/") + 1);
  var hm = base + "html-manager/";
  // embed-amd.js defines the @jupyter-widgets modules by name; mapping the names to the real file
  // also gives webpack the right base URL for the fonts and icons it loads next to itself.
  requirejs.config({
    paths: {
      "anywidget": base + "anywidget/index",
      "@jupyter-widgets/base": hm + "embed-amd",
      "@jupyter-widgets/controls": hm + "embed-amd",
      "@jupyter-widgets/html-manager": hm + "embed-amd",
      "@jupyter-widgets/html-manager/dist/libembed-amd": hm + "libembed-amd",
    },
  });
})();
