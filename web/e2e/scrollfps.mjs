// The scroll measurement shared by e2e/run.mjs and e2e/scroll.mjs: 90
// animation frames, each scrolling the thread 120 px up; resolves to the
// frames per second the page kept.
export const scrollUpFps = (page) =>
  page.evaluate(
    () =>
      new Promise((resolve) => {
        const el = document.querySelector("[data-testid=thread]");
        const times = [];
        const step = (t) => {
          times.push(t);
          el.scrollTop -= 120;
          if (times.length < 90) requestAnimationFrame(step);
          else resolve((1000 * (times.length - 1)) / (times[times.length - 1] - times[0]));
        };
        requestAnimationFrame(step);
      }),
  );
