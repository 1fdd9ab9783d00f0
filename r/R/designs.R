#' An exact private two-arm group-sequential design, like rpact or gsDesign
#'
#' Plans a two-arm trial with \code{k} looks whose stages are released once each
#' (each arm's new patients, Tulap noise at \code{epsilon}): efficacy boundaries on
#' the released difference of cumulative proportions whose exact cumulative type-I
#' error, at the worst common response rate, is at most the Lan-DeMets spending
#' function's value, and the smallest maximum size whose exact power reaches
#' \code{power}.  The Python function \code{sequential_design} does the work; the
#' non-private design's numbers are printed beside.
#'
#' @param p1,p2 The planned proportions of arm 1 (experimental) and arm 2 (control);
#'   \code{p1 > p2} plans the one-sided test of \code{p1 <= p2} against \code{p1 > p2}.
#' @param k The number of looks (2 to 6).
#' @param alpha The one-sided significance level (0.025, as rpact and gsDesign).
#' @param power The power to reach at \code{p1, p2}.
#' @param epsilon,delta The privacy of every stage's release (and, by parallel
#'   composition, of the whole design).
#' @param spending \code{"obrien-fleming"} (rpact's \code{"asOF"}, gsDesign's
#'   \code{sfLDOF}) or \code{"pocock"} (\code{"asP"}, \code{sfLDPocock}).
#' @param futility \code{TRUE} for non-binding futility boundaries by beta spending
#'   (gsDesign's \code{test.type = 4}).
#' @param ratio The allocation \code{n2 / n1} (a ratio of whole numbers up to 4).
#' @param information The planned information fractions (increasing, the last 1);
#'   \code{NULL}: equally spaced.
#' @return An object of class \code{"dp_sequential_design"}: a list with the
#'   design's fields (\code{n1}, \code{n2}, \code{efficacy_difference},
#'   \code{spent}, \code{cumulative_alpha}, \code{exact_power}, \code{expected_n0},
#'   \code{expected_n1}, \code{nonprivate}, ...) and \code{printed}, its summary.
#' @examples
#' if (dp_available()) {
#'   dp_sequential_design(0.5, 0.3, k = 3, epsilon = 1)
#' }
#' @export
dp_sequential_design <- function(p1, p2, k = 3, alpha = 0.025, power = 0.8, epsilon, delta = 0,
                                 spending = c("obrien-fleming", "pocock"), futility = FALSE, ratio = 1,
                                 information = NULL) {
  spending <- match.arg(spending)
  if (!is.logical(futility) || length(futility) != 1L || is.na(futility)) {
    stop("`futility` must be TRUE or FALSE.", call. = FALSE)
  }
  kwargs <- list(looks = .whole(k, "k"), alpha = alpha, power = power, epsilon = epsilon, delta = delta,
                 spending = spending, futility = if (futility) "non-binding" else NULL, ratio = ratio,
                 information = if (is.null(information)) NULL else as.list(as.numeric(information)))
  .new_design(.call("sequential_design", list(p1, p2), kwargs), "dp_sequential_design")
}

# A Python design as an R list (its record and printed summary), the Python object kept inside.
.new_design <- function(py_design, class) {
  structure(reticulate::py_to_r(.bridge()$design(py_design)), py = py_design, class = class)
}

.py_design <- function(design, class, maker) {
  if (!inherits(design, class)) {
    stop(sprintf("`design` must be a design made by %s().", maker), call. = FALSE)
  }
  attr(design, "py")
}

# One stage release for Python: a dp_release's Python object, or a released value (a number).
.py_stage <- function(x, name) {
  if (.is_release(x)) return(attr(x, "py"))
  if (is.numeric(x) && length(x) == 1L && is.finite(x)) return(as.numeric(x))
  stop(sprintf("`%s` must be a release from dp_release_count() (or a released value); got %s.", name,
               paste(class(x), collapse = "/")), call. = FALSE)
}

.composition <- function(composition) {
  if (is.null(composition)) return(NULL)
  match.arg(composition, c("parallel", "sequential"))
}

#' An exact private Simon two-stage design, like clinfun::ph2simon
#'
#' Searches Simon's two-stage design for a single-arm phase II trial (stop for
#' futility after stage 1, test at the end) whose stage counts are released once each
#' with Tulap noise at \code{epsilon}: the stage sizes and thresholds (on the released
#' counts' integer parts) with exact size at most \code{alpha} and exact power at least
#' \code{power}, smallest expected size under \code{p0} (optimal) or smallest maximum
#' size (minimax).  Without noise (\code{epsilon = NULL}) it is Simon's design.  The
#' Python function \code{simon_design} does the work; the print shows the design next
#' to Simon's non-private one, in \code{clinfun::ph2simon}'s layout.
#'
#' @param p0 The unacceptable response rate (H0: \code{p <= p0}); \code{ph2simon}'s \code{pu}.
#' @param p1 The desirable response rate (power at \code{p1}); \code{ph2simon}'s \code{pa}.
#' @param alpha The bound on the exact size (\code{ph2simon}'s \code{ep1}).
#' @param power The power at \code{p1} (\code{1 - ep2}).
#' @param epsilon,delta The privacy of each stage's release (and, by parallel
#'   composition, of the whole design); \code{epsilon = NULL}: Simon's design.
#' @param design \code{"optimal"} (smallest EN(p0)) or \code{"minimax"} (smallest n).
#' @param max_n The largest total size searched (\code{ph2simon}'s \code{nmax}).
#' @return An object of class \code{"dp_simon_design"}: a list with \code{r1},
#'   \code{n1}, \code{r}, \code{n}, \code{size}, \code{power}, \code{pet0}, \code{en0},
#'   \code{reference} (the non-private design), ... and \code{printed}, its summary.
#' @examples
#' if (dp_available()) {
#'   dp_simon_design(0.1, 0.3, epsilon = 2, max_n = 40)
#' }
#' @export
dp_simon_design <- function(p0, p1, alpha = 0.05, power = 0.8, epsilon, delta = 0,
                            design = c("optimal", "minimax"), max_n = 100) {
  design <- match.arg(design)
  # epsilon = NULL is Python's None (Simon's design), which .call would drop as an absent argument
  kwargs <- list(alpha = alpha, power = power, delta = delta, design = design, max_n = .whole(max_n, "max_n"),
                 epsilon = if (is.null(epsilon)) reticulate::py_none() else epsilon)
  .new_design(.call("simon_design", list(p0, p1), kwargs), "dp_simon_design")
}

#' @export
print.dp_simon_design <- function(x, ...) {
  cat(x$printed, "\n", sep = "")
  invisible(x)
}

#' The exact test at the end of a private design with interim looks
#'
#' \code{dp_simon_test} analyses a Simon design (\code{\link{dp_simon_design}}) from its
#' stage releases; \code{dp_sequential_test} a two-arm group-sequential design
#' (\code{\link{dp_sequential_design}}) from its looks' releases.  Both use the
#' stage-wise ordering: an exact p-value, a confidence interval with exact coverage for
#' the design (not the naive fixed-sample one, which is biased after early stopping) and
#' a median-unbiased estimate (Python's \code{simon_test} and \code{sequential_test}).
#'
#' Release each stage's new patients once with \code{\link{dp_release_count}} at the
#' design's \code{epsilon} (\code{n} the stage's size).  Charge them to groups of one
#' parallel set of a budget (\code{group = c("trial", "stage 1")}, ...) and the result
#' states the design's epsilon once; without, say \code{composition = "parallel"}
#' (stages are disjoint patients).
#'
#' @param design The design that was run.
#' @param releases For \code{dp_simon_test}: a list of the stage-1 release, and the
#'   stage-2 release when the trial continued (each a release or its released value).
#'   For \code{dp_sequential_test}: a list with one element per look up to the look the
#'   trial stopped at, each a list of two releases (arm 1, arm 2).
#' @param alternative \code{"greater"} (the design's test, H0: \code{p <= p0}),
#'   \code{"less"} or \code{"two.sided"}.
#' @param margin The null difference \code{p1 - p2} (two arms).
#' @param conf.level The level of the interval.
#' @param composition \code{NULL} (read the releases), \code{"parallel"} or
#'   \code{"sequential"}: how the stages' privacy adds up in the privacy line.
#' @return An object of class \code{c("dp_htest", "htest")} (see \code{\link{dp_privacy}}).
#' @examples
#' if (dp_available()) {
#'   d <- dp_simon_design(0.1, 0.3, epsilon = 2, max_n = 40)
#'   b <- dp_budget(2)
#'   s1 <- dp_release_count(3, d$n1, epsilon = 2, seed = 1, budget = b,
#'                          group = c("trial", "stage 1"))  # research only
#'   s2 <- dp_release_count(7, d$n2, epsilon = 2, seed = 2, budget = b, group = c("trial", "stage 2"))
#'   dp_simon_test(d, list(s1, s2))
#' }
#' @export
dp_simon_test <- function(design, releases, alternative = c("greater", "less", "two.sided"), conf.level = 0.95,
                          composition = NULL) {
  py <- .py_design(design, "dp_simon_design", "dp_simon_design")
  if (.is_release(releases) || !is.list(releases)) {
    stop("`releases` must be a list of the stage releases (stage 1, and stage 2 when the trial continued).",
         call. = FALSE)
  }
  stages <- lapply(seq_along(releases), function(s) .py_stage(releases[[s]], sprintf("releases[[%d]]", s)))
  kwargs <- list(alternative = .alternative(match.arg(alternative)), confidence_level = .level(conf.level),
                 composition = .composition(composition))
  .test("simon_test", list(py, stages), kwargs)
}

#' @rdname dp_simon_test
#' @export
dp_sequential_test <- function(design, releases, margin = 0, conf.level = 0.95, composition = NULL) {
  py <- .py_design(design, "dp_sequential_design", "dp_sequential_design")
  if (.is_release(releases) || !is.list(releases)) {
    stop("`releases` must be a list with one element per look, each a list of two releases (arm 1, arm 2).",
         call. = FALSE)
  }
  looks <- lapply(seq_along(releases), function(k) {
    pair <- releases[[k]]
    if (.is_release(pair) || !is.list(pair) || length(pair) != 2L || !all(vapply(pair, .is_release, TRUE))) {
      stop(sprintf("`releases[[%d]]` must be a list of two releases (arm 1, arm 2) from dp_release_count().", k),
           call. = FALSE)
    }
    list(attr(pair[[1L]], "py"), attr(pair[[2L]], "py"))
  })
  kwargs <- list(margin = margin, confidence_level = .level(conf.level), composition = .composition(composition))
  .test("sequential_test", list(py, looks), kwargs)
}

#' @export
print.dp_sequential_design <- function(x, ...) {
  cat(x$printed, "\n", sep = "")
  invisible(x)
}
