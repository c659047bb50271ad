"""Ten ordinary figures, as an author of the series draws them (matplotlib's gallery recipes among them): each
is published under the strict build (tests/test_figure_pages.py)."""
import os

import matplotlib.patheffects as effects
import matplotlib.pyplot as plt
import numpy as np

OUT = os.environ["CODEPROOF_FIGURES"]
rng = np.random.default_rng(0)


def save(figure, name):
    figure.savefig(os.path.join(OUT, name))
    plt.close(figure)


# 1. An annotated heatmap, matplotlib's recipe: white labels on dark cells, black on light ones.
figure, axes = plt.subplots()
data = rng.random((4, 5)) * 10
shown = axes.imshow(data)
for row in range(4):
    for column in range(5):
        axes.text(column, row, f"{data[row, column]:.1f}", ha="center", va="center",
                  color="w" if shown.norm(data[row, column]) < 0.5 else "k")
save(figure, "heatmap.svg")

# 2. A contour with clabel, in viridis.
figure, axes = plt.subplots()
x, y = np.meshgrid(np.linspace(-2, 2, 60), np.linspace(-2, 2, 60))
lines = axes.contour(x, y, np.exp(-x ** 2 - y ** 2), cmap="viridis")
axes.clabel(lines, fontsize=8)
save(figure, "contour.svg")

# 3. Mathtext on log axes.
figure, axes = plt.subplots()
h = np.logspace(-8, -1, 20)
axes.loglog(h, np.abs((np.sin(1 + h) - np.sin(1)) / h - np.cos(1)) + 1e-12, "o-")
axes.set_xlabel(r"$h$")
axes.set_ylabel(r"$|\hat f'(x) - f'(x)|$")
save(figure, "mathtext.svg")

# 4. Hatched bars with bar_label.
figure, axes = plt.subplots()
bars = axes.bar(["sin", "exp", "log"], [3, 5, 2], hatch="//", edgecolor="k", color="#ffffff")
axes.bar_label(bars)
save(figure, "bars.svg")

# 5. Annotations in light boxes, with the default text colour.
figure, axes = plt.subplots()
t = np.linspace(0, 3, 50)
axes.plot(t, t ** 2)
axes.annotate("f'(1.3) = 2.611", xy=(1.3, 1.69), xytext=(0.2, 6), bbox={"boxstyle": "round", "fc": "0.9"},
              arrowprops={"arrowstyle": "->"})
save(figure, "annotated.svg")

# 6. A legend over a hatched fill.
figure, axes = plt.subplots()
axes.fill_between(t, t, t ** 1.5, hatch="xx", alpha=0.3, label="gap")
axes.plot(t, t, label="t")
axes.legend(loc="upper left")
save(figure, "legend.svg")

# 7. Subplots without a layout engine.
figure, (left, right) = plt.subplots(1, 2)
left.plot(t, np.sin(t))
left.set_title("sin")
right.plot(t, np.cos(t))
right.set_title("cos")
save(figure, "subplots.svg")

# 8. A Chinese title and labels.
figure, axes = plt.subplots()
axes.plot(t, np.exp(-t))
axes.set_title("梯度随步数下降")
axes.set_xlabel("步数")
save(figure, "chinese.svg")

# 9. Text with path effects.
figure, axes = plt.subplots()
axes.plot(t, np.sin(3 * t))
axes.text(1.5, 0, "outlined", fontsize=16, path_effects=[effects.withStroke(linewidth=3, foreground="w")])
save(figure, "effects.svg")

# 10. imshow with a colour bar.
figure, axes = plt.subplots()
figure.colorbar(axes.imshow(rng.random((8, 8))), ax=axes)
save(figure, "colorbar.svg")
print("drew 10 figures")
