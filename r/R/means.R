# Means of clipped data: the release (Python's MeanReleaser) and the test shaped like t.test
# (Python's mean_test).

#' Privatize a mean: release a group's clipped sum
#'
#' Clips every value of \code{x} to the public bounds \code{[lower, upper]}
#' and releases the clipped sum with exact discrete Laplace noise of scale
#' \code{(upper - lower) / epsilon} (Python's \code{MeanReleaser}); with
#' \code{spread = TRUE} also the centred sum of squares (for a standard
#' deviation that is not known), \code{epsilon} shared by \code{split}.
#' \code{\link{dp_t_test}} tests the release.
#'
#' Only the release leaves the function: its noisy value(s), the public
#' \code{n} and bounds, and the privacy record; never \code{x}.  Choose the
#' bounds before seeing the data (a change score needs bounds for the change,
#' not for the measurement).  As in \code{\link{dp_release_count}}: no
#' \code{seed} is the hardened path; a \code{seed} is for research only; a
#' \code{budget} is charged before any noise is drawn, and \code{group =
#' c(set, name)} charges group \code{name} of the budget's parallel set
#' \code{set} (disjoint people, e.g. the two arms of a trial: parallel
#' composition, the set costs the larger epsilon).
#'
#' @param x The group's values (confidential): a numeric vector of finite
#'   numbers; its length \code{n} is public.
#' @param lower,upper The public clipping bounds, \code{lower < upper}.
#' @param epsilon The privacy parameter of the whole release (both statistics
#'   with \code{spread = TRUE}).
#' @param spread \code{TRUE} to release the centred sum of squares too.
#' @param split With \code{spread = TRUE}: the share of \code{epsilon} spent on
#'   the sum (the rest on the squares).
#' @param seed,budget,group As in \code{\link{dp_release_count}}.
#' @return An object of class \code{"dp_release"} of kind
#'   \code{"clipped_sum"}: \code{value} (the noisy clipped sum, or the pair
#'   (sum, centred sum of squares)), \code{bounds}, \code{split}, \code{n},
#'   \code{epsilon}, \code{disjoint} and the other fields of
#'   \code{\link{dp_release_count}}'s release.
#' @examples
#' if (dp_available()) {
#'   set.seed(5)
#'   treated <- dp_release_mean(rnorm(150, 125, 15), lower = 80, upper = 180, epsilon = 1,
#'                              spread = TRUE, seed = 6)   # research only: seeded
#'   print(treated)
#' }
#' @export
dp_release_mean <- function(x, lower, upper, epsilon, spread = FALSE, split = 0.5, seed = NULL, budget = NULL,
                            group = NULL) {
  if (!is.numeric(x) || !is.null(dim(x)) || !length(x)) {
    stop("`x` must be a numeric vector of the group's values (confidential: not shown).", call. = FALSE)
  }
  if (!is.logical(spread) || length(spread) != 1L || is.na(spread)) {
    stop("`spread` must be TRUE or FALSE.", call. = FALSE)
  }
  releaser <- .call("MeanReleaser", list(epsilon, lower, upper), list(spread = spread, split = split))
  # a list of doubles, not an R vector: reticulate 1.28 cannot build a NumPy 2 array.  NA and NaN
  # arrive as NaN, which Python refuses naming the position only.
  rel <- .call(releaser$release, list(as.list(as.numeric(x))),
               list(rng = .seed(seed), budget = .py_budget(budget, group)))
  .new_release(rel)
}

#' Private t test of one mean or two, like t.test
#'
#' The test and confidence interval of a mean from a clipped-sum release of
#' \code{\link{dp_release_mean}} (\code{x} alone: H0 \code{mean = mu}), or of
#' the difference of two groups' means (\code{x} and \code{y}: H0
#' \code{mean_x - mean_y = margin}), as \code{\link[stats]{t.test}}.  It calls
#' Python's \code{mean_test}: the numbers are Python's for the same releases.
#'
#' @param x A release from \code{\link{dp_release_mean}}, or a list of two
#'   (the two groups, with \code{y} left out).
#' @param y \code{NULL}, or the second group's release.
#' @param alternative \code{"two.sided"} (the default), \code{"less"} or
#'   \code{"greater"}.
#' @param mu One group: the null mean (\code{NULL}: 0), as \code{t.test}'s
#'   \code{mu}; Python's \code{mu0}.
#' @param margin Two groups: the null difference \code{mean_x - mean_y}
#'   (\code{NULL}: 0); \code{t.test(x, y, mu = )}'s \code{mu}, named as every
#'   two-group function of dpinfer names it.
#' @param conf.level The level of the interval.
#' @param method \code{"jimi"} (the default: DP-JIMI with the clipping
#'   modelled), \code{"repro"} (repro samples, valid in finite samples with the
#'   Monte Carlo error included; two groups need \code{sigma}) or
#'   \code{"naive"} (the normal interval around the clipped mean, which ignores
#'   the clipping: a comparator).
#' @param sigma \code{NULL} (the spread from the released sums of squares) or
#'   the known standard deviation (one number, or one per group).
#' @param model DP-JIMI's and repro's data model before clipping,
#'   \code{"normal"} or \code{"lognormal"} (not for \code{"naive"}).
#' @param n.sim DP-JIMI's draws (\code{NULL}: 2000) or the repro seeds.
#' @param seed The seed of the draws (\code{NULL}: derived from the releases).
#' @param composition Two groups: \code{NULL} (read the releases: parallel, the
#'   larger epsilon, only when they were charged to two groups of one budget's
#'   parallel set, see \code{group} in \code{\link{dp_release_mean}}),
#'   \code{"sequential"} or \code{"parallel"}.
#' @return An object of class \code{c("dp_htest", "htest")} (see
#'   \code{\link{dp_privacy}}).
#' @examples
#' if (dp_available()) {
#'   set.seed(5)
#'   b <- dp_budget(epsilon = 1)
#'   treated <- dp_release_mean(rnorm(150, 125, 15), 80, 180, epsilon = 1, spread = TRUE, seed = 6,
#'                              budget = b, group = c("arms", "treated"))   # research only: seeded
#'   control <- dp_release_mean(rnorm(150, 135, 15), 80, 180, epsilon = 1, spread = TRUE, seed = 7,
#'                              budget = b, group = c("arms", "control"))
#'   dp_t_test(treated, control)
#'   dp_t_test(treated, mu = 120, method = "naive")$p.value
#' }
#' @export
dp_t_test <- function(x, y = NULL, alternative = c("two.sided", "less", "greater"), mu = NULL, margin = NULL,
                      conf.level = 0.95, method = c("jimi", "repro", "naive"), sigma = NULL,
                      model = c("normal", "lognormal"), n.sim = NULL, seed = NULL, composition = NULL) {
  if (is.list(x) && !.is_release(x)) {
    if (!is.null(y) || length(x) != 2L) {
      stop("`x` given as a list must hold the two groups' releases, with `y` left out.", call. = FALSE)
    }
    y <- x[[2L]]
    x <- x[[1L]]
  }
  for (name in c("x", "y")) {
    r <- get(name)
    if (!is.null(r) && !(.is_release(r) && identical(r$kind, "clipped_sum"))) {
      stop(sprintf("`%s` must be a clipped-sum release from dp_release_mean()%s.", name,
                   if (name == "y") " or NULL" else ""), call. = FALSE)
    }
  }
  if (!is.null(sigma)) sigma <- if (length(sigma) == 1L) as.numeric(sigma) else as.list(as.numeric(sigma))
  kwargs <- list(mu0 = mu, margin = margin, method = match.arg(method), sigma = sigma, model = match.arg(model),
                 alternative = .alternative(alternative), confidence_level = .level(conf.level),
                 n_sim = if (is.null(n.sim)) NULL else .whole(n.sim, "n.sim"), rng = .seed(seed),
                 composition = .composition(composition))
  releases <- list(attr(x, "py"))
  if (!is.null(y)) releases <- c(releases, list(attr(y, "py")))
  .test("mean_test", releases, kwargs)
}
