# Paired binary data: the release of a paired 2 x 2 table and the private McNemar test.

#' Release a paired 2 x 2 table, and test it like mcnemar.test
#'
#' \code{dp_release_paired} releases the two numbers McNemar's test reads,
#' \code{n10 - n01} and \code{n01 + n10}, with Tulap noise of \code{epsilon / 2}
#' each (epsilon-DP for one pair under replace-one; Python's
#' \code{PairedTableReleaser}).  \code{dp_mcnemar_test} is the exact unconditional
#' test of \code{p10 - p01 = margin} with its confidence interval (Python's
#' \code{mcnemar_test}).
#'
#' @param x For \code{dp_release_paired}: a 2 x 2 matrix of counts,
#'   \code{x[i, j]} the pairs with first outcome \code{i - 1} and second
#'   \code{j - 1} (as \code{\link[stats]{mcnemar.test}}).  For
#'   \code{dp_mcnemar_test}: a release from \code{dp_release_paired}, or the
#'   released pair \code{c(z.difference, z.discordant)} typed in (then \code{n}
#'   and \code{epsilon} are needed).
#' @param epsilon The privacy parameter (release; with a typed-in pair).
#' @param seed,budget,group As in \code{\link{dp_release_count}}.
#' @param n The public number of pairs (only with a typed-in pair).
#' @param margin The null difference \code{p10 - p01} (0 is McNemar's null).
#' @param alternative,conf.level As in \code{\link{dp_binom_test}}.
#' @return \code{dp_release_paired}: a release.  \code{dp_mcnemar_test}: an
#'   object of class \code{c("dp_htest", "htest")} (see \code{\link{dp_privacy}});
#'   \code{p.adjust} reads its \code{p.value} like any other.
#' @examples
#' if (dp_available()) {
#'   rel <- dp_release_paired(matrix(c(21, 11, 3, 15), 2), epsilon = 2, seed = 38)  # research only
#'   res <- dp_mcnemar_test(rel)
#'   print(res)
#'   # multiplicity is post-processing: R's p.adjust on dpinfer's exact p-values
#'   p.adjust(c(res$p.value, 0.01, 0.04), "holm")
#' }
#' @export
dp_release_paired <- function(x, epsilon, seed = NULL, budget = NULL, group = NULL) {
  if (!is.matrix(x) || !is.numeric(x) || !identical(dim(x), c(2L, 2L))) {
    stop("`x` must be a 2 x 2 numeric matrix of counts of pairs.", call. = FALSE)
  }
  rows <- lapply(1:2, function(i) {
    row <- x[i, ]
    if (any(!is.finite(row)) || any(row != round(row))) {
      stop(sprintf("`x` must hold whole counts; row %d does not.", i), call. = FALSE)
    }
    as.list(as.integer(row))
  })
  releaser <- .call("PairedTableReleaser", list(epsilon))
  .new_release(.call(releaser$release, list(rows), list(rng = .seed(seed), budget = .py_budget(budget, group))))
}

#' @rdname dp_release_paired
#' @export
dp_mcnemar_test <- function(x, n = NULL, margin = 0, alternative = c("two.sided", "less", "greater"),
                            conf.level = 0.95, epsilon = NULL) {
  kwargs <- list(margin = margin, alternative = .alternative(alternative), confidence_level = .level(conf.level))
  if (.is_release(x)) {
    if (!is.null(n) || !is.null(epsilon)) {
      stop("`n` and `epsilon` come from the release `x`; do not give them again.", call. = FALSE)
    }
    return(.test("mcnemar_test", list(attr(x, "py")), kwargs))
  }
  if (!is.numeric(x) || length(x) != 2L) {
    stop("`x` must be a release from dp_release_paired() or the released pair c(z.difference, z.discordant).",
         call. = FALSE)
  }
  .check_epsilon_given(epsilon)
  if (is.null(n)) stop("`n` must be given with a released pair typed in.", call. = FALSE)
  kwargs$epsilon <- epsilon
  .test("mcnemar_test", list(as.list(as.numeric(x)), .whole(n, "n")), kwargs)
}
