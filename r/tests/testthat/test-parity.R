# The arguments issue 42 asked for, passed through to Python: the numbers are Python's for the same
# releases, and NULL leaves Python's own default in place (the default ordering may change there).

test_that("dp_prop_test passes statistic and two.sided.method to Python's prop_test", {
  skip_without_dpinfer()
  py <- py_dpinfer()
  a1 <- dp_release_count(41, 60, epsilon = 1, seed = 1)
  a2 <- dp_release_count(27, 60, epsilon = 1, seed = 2)
  r1 <- py_release(41, 60, 1, 1)
  r2 <- py_release(27, 60, 1, 2)
  for (statistic in c("difference", "score")) {
    expect_identical(dp_prop_test(list(a1, a2), statistic = statistic)$p.value,
                     py$prop_test(r1, r2, statistic = statistic)$pvalue)
  }
  # NULL is Python's default, whatever it is
  expect_identical(dp_prop_test(list(a1, a2))$p.value, py$prop_test(r1, r2)$pvalue)
  ci <- py$prop_test(r1, r2, effect = "odds-ratio", statistic = "score")$conf_int
  expect_identical(as.numeric(dp_prop_test(list(a1, a2), effect = "odds-ratio", statistic = "score")$conf.int),
                   c(ci$low, ci$high))
  one <- dp_prop_test(dp_release_count(11, 30, epsilon = 1, seed = 1), p = 0.2, two.sided.method = "equal-tailed")
  expect_identical(one$p.value, py$prop_test(py_release(11, 30, 1, 1), 0.2, two_sided_method = "equal-tailed")$pvalue)
  expect_error(dp_prop_test(12.3, 30, p = 0.2, epsilon = 1, statistic = "score"),
               "`margin`, `effect` and `statistic` are for two arms.", fixed = TRUE)
  expect_error(dp_prop_test(list(a1, a2), statistic = "wald"), "`statistic` must be")
})

test_that("dp_power_prop_test passes effect, statistic and mechanism to Python's planning", {
  skip_without_dpinfer()
  py <- py_dpinfer()
  for (statistic in list(NULL, "difference", "score")) {
    args <- list(0.5, 0.3, 60L, 60L, epsilon = 1)
    if (!is.null(statistic)) args$statistic <- statistic
    expect_identical(dp_power_prop_test(n = 60, p1 = 0.5, p2 = 0.3, epsilon = 1, statistic = statistic)$power,
                     do.call(py$binom2_ump_power, args))
  }
  expect_identical(dp_power_prop_test(n = 60, p1 = 0.5, p2 = 0.3, epsilon = 1, effect = "ratio", margin = 1)$power,
                   py$binom2_ump_power(0.5, 0.3, 60L, 60L, epsilon = 1, effect = "ratio", margin = 1))
  expect_identical(dp_power_prop_test(n = 60, p1 = 0.5, p2 = 0.3, epsilon = 1, mechanism = "laplace")$power,
                   py$binom2_ump_power(0.5, 0.3, 60L, 60L, epsilon = 1, mechanism = "laplace"))
  n <- dp_power_prop_test(p1 = 0.5, p2 = 0.3, power = 0.8, epsilon = 1, statistic = "score")$n
  expect_identical(n, unlist(py$binom2_ump_sample_size(0.5, 0.3, power = 0.8, epsilon = 1, statistic = "score"))[[1]])
})

test_that("dp_mantelhaen_test passes composition; dp_release_paired charges a parallel group", {
  skip_without_dpinfer()
  arm <- function(x, n, seed) dp_release_count(x, n, epsilon = 1, seed = seed)
  strata <- list(A = list(arm(24, 40, 1), arm(15, 40, 2)), B = list(arm(33, 60, 3), arm(22, 60, 4)))
  expect_identical(dp_privacy(dp_mantelhaen_test(strata))$epsilon, 4)
  expect_identical(dp_privacy(dp_mantelhaen_test(strata, composition = "parallel"))$epsilon, 1)
  b <- dp_budget(epsilon = 3)
  p1 <- dp_release_paired(matrix(c(21, 11, 3, 15), 2), epsilon = 2, seed = 38, budget = b, group = c("sites", "A"))
  p2 <- dp_release_paired(matrix(c(20, 9, 4, 17), 2), epsilon = 2, seed = 39, budget = b, group = c("sites", "B"))
  expect_identical(p2$disjoint[[2L]], "B")
  expect_identical(dp_spent(b)$spent.epsilon, 2)
})

test_that("dp_power_prop_test's note names the mechanism planned", {
  skip_without_dpinfer()
  expect_match(dp_power_prop_test(n = 60, p1 = 0.5, p2 = 0.3, epsilon = 1)$note, "by the Tulap mechanism")
  expect_match(dp_power_prop_test(n = 60, p1 = 0.5, p2 = 0.3, epsilon = 1, mechanism = "laplace")$note,
               "by the Laplace mechanism")
})

test_that("the default two-arm ordering is the score in R too (and the difference for Laplace arms)", {
  skip_without_dpinfer()
  py <- py_dpinfer()
  a1 <- dp_release_count(41, 60, epsilon = 1, seed = 1)
  a2 <- dp_release_count(27, 60, epsilon = 1, seed = 2)
  res <- dp_prop_test(list(a1, a2))
  expect_identical(res$p.value, py$prop_test(py_release(41, 60, 1, 1), py_release(27, 60, 1, 2),
                                             statistic = "score")$pvalue)
  expect_match(res$method, "ordered by the score statistic", fixed = TRUE)
  expect_identical(dp_power_prop_test(n = 60, p1 = 0.5, p2 = 0.3, epsilon = 1)$power,
                   py$binom2_ump_power(0.5, 0.3, 60L, 60L, epsilon = 1, statistic = "score"))
  expect_identical(dp_power_prop_test(n = 60, p1 = 0.5, p2 = 0.3, epsilon = 1, mechanism = "laplace")$power,
                   py$binom2_ump_power(0.5, 0.3, 60L, 60L, epsilon = 1, mechanism = "laplace",
                                       statistic = "difference"))
})
