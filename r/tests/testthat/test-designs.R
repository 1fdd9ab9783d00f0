test_that("dp_sequential_design equals Python's sequential_design", {
  skip_without_dpinfer()
  py <- py_dpinfer()
  d <- dp_sequential_design(0.6, 0.3, k = 2, epsilon = 2, spending = "pocock")
  ref <- py$sequential_design(0.6, 0.3, looks = 2L, epsilon = 2, spending = "pocock")
  expect_s3_class(d, "dp_sequential_design")
  expect_identical(unlist(d$n1), unlist(ref$n1))
  expect_identical(d$exact_power, ref$exact_power)
  expect_identical(unlist(d$cumulative_alpha), unlist(ref$cumulative_alpha))
  expect_true(all(unlist(d$cumulative_alpha) <= unlist(d$spent)))
  expect_output(print(d), "Lan-DeMets Pocock type")
  expect_error(dp_sequential_design(0.3, 0.3, epsilon = 1), "must differ")
  expect_error(dp_sequential_design(0.6, 0.3, epsilon = 1, futility = NA), "`futility` must be TRUE or FALSE")
})

test_that("dp_simon_design equals Python's simon_design and prints like clinfun::ph2simon", {
  skip_without_dpinfer()
  py <- py_dpinfer()
  d <- dp_simon_design(0.1, 0.3, epsilon = 2, max_n = 40)
  ref <- py$simon_design(0.1, 0.3, epsilon = 2, max_n = 40L)
  expect_s3_class(d, "dp_simon_design")
  expect_identical(c(d$r1, d$n1, d$r, d$n), c(ref$r1, ref$n1, ref$r, ref$n))
  expect_identical(c(d$size, d$power, d$pet0, d$en0), c(ref$size, ref$power, ref$pet0, ref$en0))
  # ph2simon's layout (its rows: r1 n1 r n EN(p0) PET(p0)); Simon's (1989) optimal design 1/10, 5/29 beside
  expect_output(print(d), "Unacceptable response rate:  0.1")
  expect_output(print(d), "Optimal \\(no privacy\\)  1 10 5 29  15.01  0.7361")
  simon <- dp_simon_design(0.1, 0.3, epsilon = NULL, design = "minimax", max_n = 40)
  expect_identical(c(simon$r1, simon$n1, simon$r, simon$n), c(1L, 15L, 5L, 25L))  # Simon (1989), minimax
  expect_error(dp_simon_design(0.3, 0.1, epsilon = 1), "`p1` must be larger than `p0`")
  expect_error(dp_simon_design(0.1, 0.3, epsilon = 1, max_n = 12.5), "`max_n` must be one whole number")
})

test_that("dp_simon_test equals Python's simon_test on the same releases", {
  skip_without_dpinfer()
  py <- py_dpinfer()
  d <- dp_simon_design(0.1, 0.3, epsilon = 2, max_n = 40)
  b <- dp_budget(2)
  s1 <- dp_release_count(3, d$n1, epsilon = 2, seed = 1, budget = b, group = c("trial", "stage 1"))
  s2 <- dp_release_count(7, d$n2, epsilon = 2, seed = 2, budget = b, group = c("trial", "stage 2"))
  res <- dp_simon_test(d, list(s1, s2))
  ref <- py$simon_test(py$simon_design(0.1, 0.3, epsilon = 2, max_n = 40L),
                       list(py_release(3, d$n1, 2, 1), py_release(7, d$n2, 2, 2)), composition = "parallel")
  expect_s3_class(res, "htest")
  expect_identical(res$p.value, ref$pvalue)
  expect_identical(as.numeric(res$conf.int), c(ref$conf_int$low, ref$conf_int$high))
  expect_identical(unname(res$estimate), ref$estimate)
  expect_identical(dp_privacy(res)$epsilon, 2)  # the budget's parallel set: the design's epsilon once
  two <- dp_simon_test(d, list(s1$value, s2$value), alternative = "two.sided", conf.level = 0.9)
  ref2 <- py$simon_test(py$simon_design(0.1, 0.3, epsilon = 2, max_n = 40L), list(s1$value, s2$value),
                        alternative = "two-sided", confidence_level = 0.9)
  expect_identical(two$p.value, ref2$pvalue)
  expect_error(dp_simon_test(d, s1), "`releases` must be a list of the stage releases")
  expect_error(dp_simon_test(unclass(d), list(s1)), "`design` must be a design made by dp_simon_design")
  expect_error(dp_simon_test(d, list("a")), "`releases\\[\\[1\\]\\]` must be a release")
  expect_error(dp_simon_test(d, list(s1)), "the design continues after it")
})

test_that("dp_sequential_test equals Python's sequential_test on the same releases", {
  skip_without_dpinfer()
  py <- py_dpinfer()
  d <- dp_sequential_design(0.6, 0.3, k = 2, epsilon = 2, spending = "pocock")
  rel <- list(list(dp_release_count(13, 24, epsilon = 2, seed = 1), dp_release_count(8, 24, epsilon = 2, seed = 2)),
              list(dp_release_count(16, 24, epsilon = 2, seed = 3), dp_release_count(7, 24, epsilon = 2, seed = 4)))
  res <- dp_sequential_test(d, rel, margin = 0.05, composition = "parallel")
  pyrel <- list(list(py_release(13, 24, 2, 1), py_release(8, 24, 2, 2)),
                list(py_release(16, 24, 2, 3), py_release(7, 24, 2, 4)))
  ref <- py$sequential_test(py$sequential_design(0.6, 0.3, looks = 2L, epsilon = 2, spending = "pocock"), pyrel,
                            margin = 0.05, composition = "parallel")
  expect_s3_class(res, "htest")
  expect_identical(res$p.value, ref$pvalue)
  expect_identical(as.numeric(res$conf.int), c(ref$conf_int$low, ref$conf_int$high))
  expect_identical(unname(res$estimate), ref$estimate)
  expect_identical(dp_privacy(res)$epsilon, 2)
  expect_error(dp_sequential_test(d, rel[[1]][[1]]), "`releases` must be a list with one element per look")
  expect_error(dp_sequential_test(d, list(rel[[1]][[1]])), "`releases\\[\\[1\\]\\]` must be a list of two releases")
  expect_error(dp_sequential_test(dp_simon_design(0.1, 0.3, epsilon = 2, max_n = 40), rel),
               "`design` must be a design made by dp_sequential_design")
  expect_error(dp_sequential_test(d, rel[1]), "has not stopped at look 1")
})
