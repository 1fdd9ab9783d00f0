# dp_release_mean and dp_t_test against Python's MeanReleaser and mean_test called directly (not
# through this package) for the same seeded releases: the same doubles, to the last bit.

# Python's release of the same values with the same seed, made directly.
py_mean_release <- function(x, lower, upper, epsilon, seed, spread = FALSE) {
  py_dpinfer()$MeanReleaser(epsilon, lower, upper, spread = spread)$release(as.list(x), rng = as.integer(seed))
}

set.seed(5)
treated_x <- round(rnorm(150, 125, 15), 1)
control_x <- round(rnorm(150, 135, 15), 1)

test_that("dp_release_mean is Python's MeanReleaser release for the same seed", {
  skip_without_dpinfer()
  for (spread in c(FALSE, TRUE)) {
    rel <- dp_release_mean(treated_x, 80, 180, epsilon = 1, spread = spread, seed = 6)
    ref <- py_mean_release(treated_x, 80, 180, 1, 6, spread = spread)
    expect_identical(rel$value, as.numeric(unlist(ref$to_dict()$value)))
    expect_identical(rel$kind, "clipped_sum")
    expect_identical(rel$n, 150L)
    expect_identical(rel$bounds, c(80, 180))
    expect_length(rel$value, if (spread) 2L else 1L)
  }
  expect_output(print(rel), "noisy clipped sum, centred sum of squares out of n = 150")
})

test_that("dp_t_test equals Python's mean_test for every method, one group and two", {
  skip_without_dpinfer()
  py <- py_dpinfer()
  tr <- dp_release_mean(treated_x, 80, 180, epsilon = 1, spread = TRUE, seed = 6)
  co <- dp_release_mean(control_x, 80, 180, epsilon = 1, spread = TRUE, seed = 7)
  py_tr <- py_mean_release(treated_x, 80, 180, 1, 6, spread = TRUE)
  py_co <- py_mean_release(control_x, 80, 180, 1, 7, spread = TRUE)
  same <- function(res, ref) {
    expect_s3_class(res, "htest")
    expect_identical(res$p.value, ref$pvalue)
    expect_identical(as.numeric(res$conf.int), c(ref$conf_int$low, ref$conf_int$high))
    expect_identical(unname(res$estimate), ref$estimate)
    expect_identical(res$method, ref$method)
  }
  # one group: mu is Python's mu0
  same(dp_t_test(tr, mu = 120, n.sim = 500, seed = 1),
       py$mean_test(py_tr, mu0 = 120, n_sim = 500L, rng = 1L))
  same(dp_t_test(tr, mu = 120, method = "naive", alternative = "greater"),
       py$mean_test(py_tr, mu0 = 120, method = "naive", alternative = "greater"))
  same(dp_t_test(tr, mu = 120, method = "repro", n.sim = 99, seed = 2),
       py$mean_test(py_tr, mu0 = 120, method = "repro", n_sim = 99L, rng = 2L))
  # two groups: margin; a list of two is the same as x and y
  same(dp_t_test(tr, co, margin = -5, n.sim = 500, seed = 1, conf.level = 0.9),
       py$mean_test(py_tr, py_co, margin = -5, n_sim = 500L, rng = 1L, confidence_level = 0.9))
  same(dp_t_test(list(tr, co), method = "naive"), py$mean_test(py_tr, py_co, method = "naive"))
  same(dp_t_test(tr, co, method = "repro", sigma = 15, n.sim = 99, seed = 3, alternative = "less"),
       py$mean_test(py_tr, py_co, method = "repro", sigma = 15, n_sim = 99L, rng = 3L, alternative = "less"))
  same(dp_t_test(tr, co, method = "naive", sigma = c(15, 14)),
       py$mean_test(py_tr, py_co, method = "naive", sigma = reticulate::tuple(15, 14)))
  # the defaults are Python's (DP-JIMI, 2000 draws from a stream derived from the releases)
  same(dp_t_test(tr, co), py$mean_test(py_tr, py_co))
})

test_that("dp_t_test refuses what does not apply, with the argument as R names it", {
  skip_without_dpinfer()
  tr <- dp_release_mean(treated_x, 80, 180, epsilon = 1, seed = 6)
  co <- dp_release_mean(control_x, 80, 180, epsilon = 1, seed = 7)
  expect_error(dp_t_test(tr, co, mu = 1), "`mu` is the null mean of one group; with two releases give `margin`")
  expect_error(dp_t_test(tr, margin = 1), "`margin` is the null difference of two groups; with one release give `mu`")
  expect_error(dp_t_test(dp_release_count(3, 10, epsilon = 1, seed = 1)),
               "`x` must be a clipped-sum release from dp_release_mean()", fixed = TRUE)
  expect_error(dp_t_test(tr, 3), "`y` must be a clipped-sum release from dp_release_mean() or NULL", fixed = TRUE)
  expect_error(dp_t_test(list(tr, co), co), "`x` given as a list must hold the two groups' releases")
  expect_error(dp_t_test(tr, method = "bootstrap"), "'arg' should be one of")
  expect_error(dp_t_test(tr, co, composition = "max"), "'arg' should be one of")
  # a confidential value is described by its position (counted from 1, as R does), never shown
  err <- tryCatch(dp_release_mean(c(1.5, NA, 1234.5), 0, 5, epsilon = 1, seed = 1), error = conditionMessage)
  expect_match(err, "the entry at position 2 is not", fixed = TRUE)
  expect_false(grepl("1234", err, fixed = TRUE))
  expect_error(dp_release_mean(matrix(1:4, 2), 0, 5, epsilon = 1), "`x` must be a numeric vector")
  expect_error(dp_release_mean(1:4, 5, 0, epsilon = 1), "`lower` must be below `upper`")
  expect_error(dp_release_mean(1:4, 0, 5, epsilon = 1, spread = NA), "`spread` must be TRUE or FALSE")
})

test_that("two arms in parallel groups of one budget: the ledger's spent epsilon is the privacy line's", {
  skip_without_dpinfer()
  b <- dp_budget(epsilon = 2)
  tr <- dp_release_mean(treated_x, 80, 180, epsilon = 1, seed = 6, budget = b, group = c("arms", "treated"))
  co <- dp_release_mean(control_x, 80, 180, epsilon = 0.75, seed = 7, budget = b, group = c("arms", "control"))
  expect_identical(co$disjoint[[2L]], "control")
  res <- dp_t_test(tr, co, method = "naive", sigma = 15)
  spent <- dp_spent(b)$spent.epsilon
  expect_identical(spent, 1)  # the larger of the two groups (parallel composition), not 1.75
  expect_identical(dp_privacy(res)$epsilon, spent)
  expect_identical(dp_privacy(res)$composition, "parallel")
  line <- grep("^privacy:", attr(res, "privacy")$lines, value = TRUE)
  expect_identical(as.numeric(sub("^privacy: epsilon = ([0-9.]+),.*", "\\1", line)), spent)
  # the same arms charged to the budget itself: sequential, the sum, in the ledger and the result
  s <- dp_budget(epsilon = 2)
  seq_res <- dp_t_test(dp_release_mean(treated_x, 80, 180, epsilon = 1, seed = 6, budget = s),
                       dp_release_mean(control_x, 80, 180, epsilon = 0.75, seed = 7, budget = s), method = "naive",
                       sigma = 15)
  expect_identical(dp_spent(s)$spent.epsilon, 1.75)
  expect_identical(dp_privacy(seq_res)$epsilon, 1.75)
  expect_identical(dp_privacy(seq_res)$composition, "sequential")
})

test_that("two count arms in parallel groups: the ledger's spent epsilon is dp_prop_test's privacy line", {
  skip_without_dpinfer()
  b <- dp_budget(epsilon = 3)
  a1 <- dp_release_count(41, 60, epsilon = 1, seed = 1, budget = b, group = c("arms", "treated"))
  a2 <- dp_release_count(27, 60, epsilon = 1, seed = 2, budget = b, group = c("arms", "control"))
  res <- dp_prop_test(list(a1, a2))
  line <- grep("^privacy:", attr(res, "privacy")$lines, value = TRUE)
  expect_identical(as.numeric(sub("^privacy: epsilon = ([0-9.]+),.*", "\\1", line)), dp_spent(b)$spent.epsilon)
  expect_identical(dp_spent(b)$spent.epsilon, 1)
})
